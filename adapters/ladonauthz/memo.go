package ladonauthz

import "sync"

// maxMemoEntries bounds the decision memo. Keys are role × action × resource,
// a few hundred with the shipped policies; the bound only matters if a caller
// ever puts ids into resource names.
const maxMemoEntries = 4096

type decisionKey struct{ subject, action, resource string }

// decision is ladon's answer for a key. contextFree answers may be reused;
// the others record only that the key needs a full evaluation every time.
type decision struct {
	contextFree bool
	cause       error // nil means allowed
}

// decisionMemo remembers decisions that do not depend on the request
// context. Policies are loaded once at start and never change, so a
// remembered decision stays right for the life of the Authorizer. Ladon's
// regexp matching over every policy was the largest cost of a request after
// token verification was cached (bench/README.md).
type decisionMemo struct {
	mu sync.RWMutex
	m  map[decisionKey]decision
}

func (c *decisionMemo) get(k decisionKey) (decision, bool) {
	c.mu.RLock()
	d, ok := c.m[k]
	c.mu.RUnlock()
	return d, ok
}

func (c *decisionMemo) put(k decisionKey, d decision) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[decisionKey]decision)
	}
	if len(c.m) >= maxMemoEntries {
		return // full: further keys are evaluated by ladon every time
	}
	c.m[k] = d
}
