-- list_suborgs pages by (created_at, id): the index holds both, so a page at any offset is one range of it.
CREATE INDEX organizations_children ON organizations (parent_id, created_at, id);
DROP INDEX organizations_parent;
