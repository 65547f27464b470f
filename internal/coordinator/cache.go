package coordinator

import "sync"

// cacheSize bounds each cache; past it the cache starts over.
const cacheSize = 10000

// cache keeps values by id, shared between requests and never changed once put.
type cache[V any] struct {
	mu sync.Mutex
	m  map[string]V
}

func (c *cache[V]) get(id string) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[id]
	return v, ok
}

// put stores v unless the value already kept should stay (keep reports so; nil keeps nothing).
func (c *cache[V]) put(id string, v V, keep func(old V) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= cacheSize {
		c.m = make(map[string]V)
	}
	if old, ok := c.m[id]; ok && keep != nil && keep(old) {
		return
	}
	c.m[id] = v
}

func (c *cache[V]) drop(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, id)
}

// orgCache keeps decoded organization documents by id, each at the version it was read. A request that finds the stored
// version unchanged reuses the decoded document instead of decoding the JSON again; an activity authenticates against
// it without asking (authenticateSubmission).
type orgCache struct{ cache[*Org] }

func (c *orgCache) get(id string) *Org {
	o, _ := c.cache.get(id)
	return o
}

// put keeps the newer of o and the cached version.
func (c *orgCache) put(o *Org) {
	c.cache.put(o.ID, o, func(old *Org) bool { return old.version >= o.version })
}
