package coordinator

import "sync"

// orgCacheSize bounds the decoded organizations kept; past it the cache starts over.
const orgCacheSize = 10000

// orgCache keeps decoded organization documents by id, each at the version it was read. A request that finds the stored
// version unchanged reuses the decoded document instead of decoding the JSON again. Cached documents are shared and
// never changed.
type orgCache struct {
	mu   sync.Mutex
	orgs map[string]*Org
}

func (c *orgCache) get(id string) *Org {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.orgs[id]
}

func (c *orgCache) put(o *Org) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.orgs == nil || len(c.orgs) >= orgCacheSize {
		c.orgs = make(map[string]*Org)
	}
	if old := c.orgs[o.ID]; old == nil || old.version < o.version {
		c.orgs[o.ID] = o
	}
}

func (c *orgCache) drop(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.orgs, id)
}
