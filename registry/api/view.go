package api

import (
	"bytes"
	"container/list"
	"encoding/binary"
	"hash/maphash"
	"io"
	"net/http"
	"sync"

	"github.com/charter-dev/charter/registry"
)

// DefaultCacheBytes is the default byte budget of the response view
// (Options.CacheBytes): 64 MiB.
const DefaultCacheBytes = 64 << 20

// maxViewedBody is the largest lookup request body whose answer the view
// keeps (the body's hash is part of the key, the body itself is kept to
// confirm a hit).
const maxViewedBody = 256 << 10

// view keeps encoded 200 answers of the read paths (latest and numbered
// versions, version lists, /subjects, lookups, config and mode) keyed by
// method, path, query and (for a lookup) a seeded 64-bit hash of the body,
// with the body kept in the entry and compared byte for byte on a hit, so
// that two different bodies never share an answer, even when their hashes
// collide (a collision only costs a miss), each tagged with the
// Service's generation when its read began. An answer is served only
// while the generation is unchanged, so it is exact: any write through the
// Service moves the generation before it is acknowledged, and with a
// store shared by several processes (PostgreSQL replicas) the generation
// includes the store's count of committed writes, read on every request
// (registry.Service.ReadGeneration); a shared store that keeps no count
// turns the view off, and every request reads through. Entries are
// evicted least recently used first once their bytes pass the budget.
type view struct {
	mu     sync.Mutex
	budget int
	used   int
	lru    *list.List // of *viewEntry, most recent first
	m      map[string]*list.Element
}

type viewEntry struct {
	key  string
	gen  registry.Generation
	req  []byte // the request body (lookups), compared on every hit
	body []byte
}

// bodySeed seeds the lookup bodies' hash, per process.
var bodySeed = maphash.MakeSeed()

// bodyKey is the part of a view key that a request body adds: its
// 64-bit seeded hash, 8 bytes.
func bodyKey(body []byte) string {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], maphash.Bytes(bodySeed, body))
	return string(b[:])
}

// viewEntryOverhead approximates an entry's bookkeeping bytes.
const viewEntryOverhead = 160

func newView(budget int) *view {
	return &view{budget: budget, lru: list.New(), m: map[string]*list.Element{}}
}

// get returns the answer kept under key at generation gen for a request
// whose body is req (nil for a GET).
func (v *view) get(key string, gen registry.Generation, req []byte) ([]byte, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	el, ok := v.m[key]
	if !ok {
		return nil, false
	}
	e := el.Value.(*viewEntry)
	if e.gen != gen {
		v.remove(el)
		return nil, false
	}
	if !bytes.Equal(e.req, req) {
		return nil, false
	}
	v.lru.MoveToFront(el)
	return e.body, true
}

// put keeps body, the answer to a request whose body was req (nil for a
// GET), under key at generation gen; req is kept as given, not copied.
func (v *view) put(key string, gen registry.Generation, req, body []byte) {
	size := len(key) + cap(req) + len(body) + viewEntryOverhead
	if size > v.budget/8 {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if el, ok := v.m[key]; ok {
		v.remove(el)
	}
	v.m[key] = v.lru.PushFront(&viewEntry{key: key, gen: gen, req: req, body: body})
	v.used += size
	for v.used > v.budget {
		v.remove(v.lru.Back())
	}
}

func (v *view) remove(el *list.Element) {
	e := v.lru.Remove(el).(*viewEntry)
	delete(v.m, e.key)
	v.used -= len(e.key) + cap(e.req) + len(e.body) + viewEntryOverhead
}

// viewed serves h's 200 answers from the view when it holds one at the
// current generation, and keeps them otherwise.
func (s *server) viewed(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		gen, exact := s.svc.ReadGeneration(r.Context())
		if !exact || s.view == nil {
			h(w, r)
			return
		}
		key := r.Method + " " + r.URL.Path + "?" + r.URL.RawQuery
		var req []byte
		if r.Method == http.MethodPost {
			body, err := readBody(r, maxViewedBody+1, bodyBuffers.Get().([]byte))
			if err != nil || len(body) > maxViewedBody {
				r.Body = readCloser{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
				h(w, r)
				return
			}
			r.Body = readCloser{bytes.NewReader(body), r.Body}
			key += "\x00" + r.Header.Get(acceptUnknownHeader) + "\x00" + bodyKey(body)
			req = body
		}
		if body, ok := s.view.get(key, gen, req); ok {
			writeRaw(w, http.StatusOK, body)
			if req != nil {
				// Nothing holds the body of a request answered from
				// the view: its buffer serves the next one (a Put
				// of a slice allocates its 24-byte header, not the
				// body).
				bodyBuffers.Put(req[:0])
			}
			return
		}
		rec := &viewRecorder{ResponseWriter: w, pre: len(w.Header())}
		h(rec, r)
		if rec.status == http.StatusOK && !rec.skip {
			s.view.put(key, gen, req, rec.body.Bytes())
		}
	}
}

// bodyBuffers holds the buffers of lookup bodies answered from the view
// ([]byte, length 0), so that a hot lookup of a large schema does not
// allocate its body on every request.
var bodyBuffers = sync.Pool{New: func() any { return []byte(nil) }}

// readBody reads at most limit bytes of r's body into buf (reused when
// its capacity suffices), sized by its Content-Length when that is known
// so the buffer is not regrown.
func readBody(r *http.Request, limit int64, buf []byte) ([]byte, error) {
	if n := r.ContentLength; n >= 0 && n < limit {
		if int64(cap(buf)) < n+1 {
			buf = make([]byte, n, n+1)
		}
		buf = buf[:n]
		m, err := io.ReadFull(r.Body, buf)
		if err == io.ErrUnexpectedEOF || err == io.EOF {
			return buf[:m], nil
		}
		if err != nil {
			return buf[:m], err
		}
		// A body longer than its Content-Length: read what remains, bounded.
		rest, err := io.ReadAll(io.LimitReader(r.Body, limit-n))
		return append(buf, rest...), err
	}
	return io.ReadAll(io.LimitReader(r.Body, limit))
}

type readCloser struct {
	io.Reader
	io.Closer
}

// viewRecorder passes an answer through and keeps a copy of its body.
type viewRecorder struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
	pre    int  // headers set before the handler ran (request ID, CORS)
	skip   bool // the handler set headers besides the content's own
}

func (rw *viewRecorder) WriteHeader(status int) {
	if rw.status == 0 {
		rw.status = status
		// writeRaw's own headers are the content's too: its type and
		// length, and the Cache-Control and X-Xss-Protection every
		// answer carries (a handler's own Cache-Control is not).
		h := rw.Header()
		n := len(h)
		for _, k := range []string{"Content-Type", "Content-Length", "X-Xss-Protection"} {
			if _, ok := h[k]; ok {
				n--
			}
		}
		if cc := h["Cache-Control"]; len(cc) == 1 && cc[0] == noCache {
			n--
		}
		rw.skip = n > rw.pre
	}
	rw.ResponseWriter.WriteHeader(status)
}

func (rw *viewRecorder) Write(b []byte) (int, error) {
	if rw.status == 0 {
		rw.WriteHeader(http.StatusOK)
	}
	rw.body.Write(b)
	return rw.ResponseWriter.Write(b)
}

func (rw *viewRecorder) Unwrap() http.ResponseWriter { return rw.ResponseWriter }
