package web

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
)

// assets are the static files, served under a name carrying a hash of
// their content (app.3f2a….css) so that browsers may cache them for good.
type assets struct {
	byName map[string]string // "app.css" → "app.3f2a….css"
	files  map[string][]byte // hashed name → content
}

func loadAssets(fsys fs.FS) (*assets, error) {
	a := &assets{byName: map[string]string{}, files: map[string][]byte{}}
	entries, err := fs.ReadDir(fsys, "static")
	if err != nil {
		return nil, fmt.Errorf("web: static files: %w", err)
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		b, err := fs.ReadFile(fsys, "static/"+e.Name())
		if err != nil {
			return nil, fmt.Errorf("web: static file %s: %w", e.Name(), err)
		}
		sum := sha256.Sum256(b)
		ext := path.Ext(e.Name())
		hashed := strings.TrimSuffix(e.Name(), ext) + "." + hex.EncodeToString(sum[:6]) + ext
		a.byName[e.Name()] = hashed
		a.files[hashed] = b
	}
	return a, nil
}

// path is the URL of the static file name.
func (a *assets) path(name string) string {
	return Prefix + "/static/" + a.byName[name]
}

func (u *ui) static(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("file")
	b, ok := u.assets.files[name]
	if !ok {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Content-Type", mime.TypeByExtension(path.Ext(name)))
	h.Set("Cache-Control", "public, max-age=31536000, immutable")
	h.Set("ETag", `"`+name+`"`)
	if r.Header.Get("If-None-Match") == `"`+name+`"` {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	_, _ = w.Write(b)
}
