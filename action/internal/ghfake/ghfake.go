// Package ghfake is a fake of the part of GitHub's REST API the CI action
// uses (a pull request's issue comments: list, create, update), on
// 127.0.0.1, for tests of the action and its helper.
package ghfake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
)

// Comment is a stored comment.
type Comment struct {
	ID      int64  `json:"id"`
	Body    string `json:"body"`
	HTMLURL string `json:"html_url"`
	Issue   int    `json:"-"`
}

// Server is the fake. Its URL is what GITHUB_API_URL names.
type Server struct {
	*httptest.Server
	// Token is the bearer token every request must carry.
	Token string
	// Repo is the owner/name the routes answer for.
	Repo string

	mu       sync.Mutex
	comments []*Comment
	nextID   int64
	requests []string
}

// New starts a fake for repo that accepts token; it stops at the end of
// the test.
func New(t testing.TB, repo, token string) *Server {
	t.Helper()
	s := &Server{Token: token, Repo: repo, nextID: 1000}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /repos/{owner}/{name}/issues/{number}/comments", s.list)
	mux.HandleFunc("POST /repos/{owner}/{name}/issues/{number}/comments", s.create)
	mux.HandleFunc("PATCH /repos/{owner}/{name}/issues/comments/{id}", s.update)
	s.Server = httptest.NewServer(s.auth(mux))
	t.Cleanup(s.Close)
	return s
}

// Seed stores a comment someone else wrote on issue n.
func (s *Server) Seed(n int, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.add(n, body)
}

func (s *Server) add(n int, body string) *Comment {
	s.nextID++
	c := &Comment{ID: s.nextID, Body: body, Issue: n, HTMLURL: fmt.Sprintf("https://github.com/%s/pull/%d#issuecomment-%d", s.Repo, n, s.nextID)}
	s.comments = append(s.comments, c)
	return c
}

// Comments returns the comments of issue n, oldest first.
func (s *Server) Comments(n int) []Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Comment
	for _, c := range s.comments {
		if c.Issue == n {
			out = append(out, *c)
		}
	}
	return out
}

// Requests returns "METHOD path" of every request served, in order.
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

func (s *Server) auth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests = append(s.requests, r.Method+" "+r.URL.RequestURI())
		s.mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer "+s.Token {
			writeJSON(w, http.StatusUnauthorized, map[string]string{"message": "Bad credentials"})
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) repoOK(w http.ResponseWriter, r *http.Request) bool {
	if r.PathValue("owner")+"/"+r.PathValue("name") != s.Repo {
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
		return false
	}
	return true
}

func (s *Server) list(w http.ResponseWriter, r *http.Request) {
	if !s.repoOK(w, r) {
		return
	}
	n, _ := strconv.Atoi(r.PathValue("number"))
	per, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
	if per <= 0 {
		per = 30
	}
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	if page <= 0 {
		page = 1
	}
	all := s.Comments(n)
	lo, hi := min((page-1)*per, len(all)), min(page*per, len(all))
	out := all[lo:hi]
	if out == nil {
		out = []Comment{}
	}
	writeJSON(w, http.StatusOK, out)
}

func readBody(w http.ResponseWriter, r *http.Request) (string, bool) {
	var in struct {
		Body *string `json:"body"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Body == nil {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]string{"message": "Invalid request: body is required"})
		return "", false
	}
	return *in.Body, true
}

func (s *Server) create(w http.ResponseWriter, r *http.Request) {
	if !s.repoOK(w, r) {
		return
	}
	n, _ := strconv.Atoi(r.PathValue("number"))
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	c := *s.add(n, body)
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, c)
}

func (s *Server) update(w http.ResponseWriter, r *http.Request) {
	if !s.repoOK(w, r) {
		return
	}
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.comments {
		if c.ID == id {
			c.Body = body
			writeJSON(w, http.StatusOK, *c)
			return
		}
	}
	writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
