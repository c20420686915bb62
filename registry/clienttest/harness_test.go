package clienttest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// charterPackage is the import path of the binary under test.
const charterPackage = "github.com/charter-dev/charter/cmd/charter"

// contentType is what Confluent clients send with a request body.
const contentType = "application/vnd.schemaregistry.v1+json"

// binDir holds the charter binary built for this test run.
var binDir string

var (
	buildOnce  sync.Once
	charterBin string // path of the built binary
	buildErr   error
)

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "charter-clienttest-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "clienttest: make temp dir: %v\n", err)
		return 1
	}
	defer os.RemoveAll(dir)
	binDir = dir
	return m.Run()
}

// charterBinary builds ./cmd/charter once per test run and returns its path.
//
// It builds with CGO_ENABLED=0: the binary must build (and run) without cgo,
// even though this test package links the cgo Confluent client. It also
// lists the directories of the binary's own packages and of their embedded
// files, and reads go.mod and go.sum: go test records the files and
// directories a test opens (with their sizes and mtimes), so a cached "ok"
// for this package is invalidated when the server's code changes, although
// the test binary does not import it.
func charterBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		bin := filepath.Join(binDir, "charter")
		build := exec.Command(goTool(), "build", "-o", bin, charterPackage)
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("CGO_ENABLED=0 go build %s: %w\n%s", charterPackage, err, out)
			return
		}
		if err := touchSources(); err != nil {
			buildErr = err
			return
		}
		charterBin = bin
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return charterBin
}

// touchSources opens what the charter binary is built from (see
// charterBinary): every package directory of the main module in its import
// graph, the directories of their embedded files, go.mod and go.sum.
func touchSources() error {
	list := exec.Command(goTool(), "list", "-deps",
		"-f", "{{if and .Module .Module.Main}}{{.Module.Dir}}|{{.Dir}}|{{join .EmbedFiles \"|\"}}{{end}}",
		charterPackage)
	out, err := list.Output()
	if err != nil {
		return fmt.Errorf("go list -deps %s: %w", charterPackage, err)
	}
	dirs := map[string]bool{}
	var modDir string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		parts := strings.Split(line, "|")
		if len(parts) < 2 {
			continue
		}
		modDir = parts[0]
		dirs[parts[1]] = true
		for _, f := range parts[2:] {
			if f != "" {
				dirs[filepath.Dir(filepath.Join(parts[1], f))] = true
			}
		}
	}
	if modDir == "" {
		return fmt.Errorf("go list -deps %s: no package of the main module", charterPackage)
	}
	for dir := range dirs {
		if _, err := os.ReadDir(dir); err != nil {
			return fmt.Errorf("list charter sources: %w", err)
		}
	}
	for _, f := range []string{"go.mod", "go.sum"} {
		if _, err := os.ReadFile(filepath.Join(modDir, f)); err != nil {
			return fmt.Errorf("read charter module file: %w", err)
		}
	}
	return nil
}

// goTool returns the go command; `go test` puts GOROOT/bin first on PATH.
func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return "go"
}

// inCI reports whether the tests run in CI (env CI=true), where a missing
// prerequisite is a failure rather than a skip.
func inCI() bool { return os.Getenv("CI") == "true" }

// lockedBuffer collects the server's output from its two pipes.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// server is one running `charter serve` process.
type server struct {
	URL    string // http://127.0.0.1:port, no trailing slash
	DB     string // path of the SQLite file
	cmd    *exec.Cmd
	output *lockedBuffer
	exited chan struct{} // closed when the process has been reaped
	state  *os.ProcessState
}

// startServer starts `charter serve` on a fresh database in t.TempDir() and
// registers a cleanup that stops it with SIGTERM and checks a clean exit.
func startServer(t *testing.T) *server {
	t.Helper()
	return startServerDB(t, filepath.Join(t.TempDir(), "charter.db"))
}

// startServerDB starts `charter serve --db db` on a free loopback port and
// waits until GET / answers 200. It fails the test if the server does not
// come up within 20 s.
func startServerDB(t *testing.T, db string, args ...string) *server {
	t.Helper()
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		s, err := launch(charterBinary(t), db, args...)
		if err == nil {
			t.Cleanup(func() {
				if t.Failed() {
					t.Logf("charter serve output (%s):\n%s", s.URL, s.output.String())
				}
				s.stop(t)
			})
			return s
		}
		lastErr = err
		// A port picked free may be taken by the time the server binds:
		// try another one.
	}
	t.Fatalf("start charter serve: %v", lastErr)
	return nil
}

// launch starts `charter serve --listen … --db db args…` and waits until
// GET /health/ready (open with authentication on too) answers 200.
func launch(bin, db string, args ...string) (*server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	return launchAt(bin, db, fmt.Sprintf("127.0.0.1:%d", port), args...)
}

// launchAt is launch on the address addr (host:port), for a server that
// must come back where it was.
func launchAt(bin, db, addr string, args ...string) (*server, error) {
	s := &server{
		URL:    "http://" + addr,
		DB:     db,
		output: &lockedBuffer{},
		exited: make(chan struct{}),
	}
	s.cmd = exec.Command(bin, append([]string{"serve", "--listen", addr, "--db", db}, args...)...)
	s.cmd.Stdout = s.output
	s.cmd.Stderr = s.output
	s.cmd.Env = withoutCharterEnv(os.Environ())
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	go func() {
		_ = s.cmd.Wait()
		s.state = s.cmd.ProcessState
		close(s.exited)
	}()
	deadline := time.Now().Add(20 * time.Second)
	client := &http.Client{Timeout: time.Second}
	for time.Now().Before(deadline) {
		select {
		case <-s.exited:
			return nil, fmt.Errorf("charter serve exited before answering (%v):\n%s", s.state, s.output.String())
		default:
		}
		resp, err := client.Get(s.URL + "/health/ready")
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s, nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = s.cmd.Process.Kill()
	<-s.exited
	return nil, fmt.Errorf("charter serve on %s did not answer GET /health/ready with 200 within 20s:\n%s", addr, s.output.String())
}

// withoutCharterEnv drops CHARTER_* variables so that only the flags we pass
// configure the server.
func withoutCharterEnv(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, "CHARTER_") {
			out = append(out, kv)
		}
	}
	return out
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// stop sends SIGTERM and requires the process to exit with status 0 within
// 10 s. Calling it on a stopped or killed server does nothing.
func (s *server) stop(t *testing.T) {
	t.Helper()
	select {
	case <-s.exited:
		return
	default:
	}
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Errorf("SIGTERM charter serve: %v", err)
	}
	select {
	case <-s.exited:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
		t.Errorf("charter serve did not exit within 10s of SIGTERM; killed it. Output:\n%s", s.output.String())
		return
	}
	if code := s.state.ExitCode(); code != 0 {
		t.Errorf("charter serve exited with %v after SIGTERM, want exit status 0. Output:\n%s", s.state, s.output.String())
	}
}

// kill sends SIGKILL and waits until the process is reaped.
func (s *server) kill(t *testing.T) {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatalf("SIGKILL charter serve: %v", err)
	}
	select {
	case <-s.exited:
	case <-time.After(10 * time.Second):
		t.Fatalf("charter serve still running 10s after SIGKILL")
	}
}

// apiResponse is one HTTP answer: status and body.
type apiResponse struct {
	Status int
	Body   []byte
}

// errorBody is Confluent's error shape.
type errorBody struct {
	ErrorCode int    `json:"error_code"`
	Message   string `json:"message"`
}

// do sends method path with an optional JSON body (marshalled unless it is
// already []byte or string) and returns the status and body. Transport errors
// are returned, not fatal, so that callers racing a SIGKILL can tell them
// apart from answers.
func (s *server) do(ctx context.Context, client *http.Client, method, path string, body any) (apiResponse, error) {
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	case string:
		rd = strings.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			return apiResponse{}, fmt.Errorf("marshal %s %s body: %w", method, path, err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, s.URL+path, rd)
	if err != nil {
		return apiResponse{}, fmt.Errorf("new request %s %s: %w", method, path, err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", contentType)
	resp, err := client.Do(req)
	if err != nil {
		return apiResponse{}, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return apiResponse{}, fmt.Errorf("%s %s: read body: %w", method, path, err)
	}
	return apiResponse{Status: resp.StatusCode, Body: data}, nil
}

// mustDo is do for callers that expect the server to be up: a transport
// error fails the test, and the status must be want.
func (s *server) mustDo(t *testing.T, method, path string, body any, want int) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err := s.do(ctx, http.DefaultClient, method, path, body)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != want {
		t.Fatalf("%s %s: status %d, want %d; body %s", method, path, r.Status, want, r.Body)
	}
	return r.Body
}

// decodeJSON unmarshals data into a new T or fails the test.
func decodeJSON[T any](t *testing.T, what string, data []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("decode %s %q: %v", what, data, err)
	}
	return v
}

// sameJSON reports whether two JSON texts hold the same value (key order and
// whitespace aside). Confluent returns a registered Avro schema re-serialised,
// not byte for byte, so stored texts are compared this way.
func sameJSON(a, b string) (bool, error) {
	var va, vb any
	if err := json.Unmarshal([]byte(a), &va); err != nil {
		return false, fmt.Errorf("parse %q: %w", a, err)
	}
	if err := json.Unmarshal([]byte(b), &vb); err != nil {
		return false, fmt.Errorf("parse %q: %w", b, err)
	}
	ca, _ := json.Marshal(va)
	cb, _ := json.Marshal(vb)
	return bytes.Equal(ca, cb), nil
}

// isTransportError reports whether err came from the connection rather than
// from an answer (used while racing a SIGKILL).
func isTransportError(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED)
}
