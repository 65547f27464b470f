-- The yield service's fee set belongs to a project, not to each of its keys: a project whose keys were on both sets
-- saw both sets' allocator vaults. yield_projects holds each project's set, fixed when its first key is created;
-- keys read it from there and no longer carry one of their own.
CREATE TABLE yield_projects (
    project    TEXT PRIMARY KEY,
    fee_set    INTEGER NOT NULL,
    created_at BIGINT NOT NULL
);

-- An existing project takes the set of its oldest key (of the lower set if two keys are equally old), as a project
-- created from now on takes the set of its first key; its keys of the other set move to the project's set.
INSERT INTO yield_projects (project, fee_set, created_at)
SELECT project, MIN(fee_set), MIN(created_at) FROM yield_api_keys k
WHERE created_at = (SELECT MIN(created_at) FROM yield_api_keys o WHERE o.project = k.project)
GROUP BY project;

ALTER TABLE yield_api_keys DROP COLUMN fee_set;
