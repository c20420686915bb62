// Command bench measures Charter's REST API side by side with a bare
// net/http handler answering the same bytes, headers included (in a
// process of its own, as Charter is), and optionally with a peer
// registry (--peer URL), over loopback with the same in-process load
// generator (keep-alive clients, --workers goroutines).
//
// It builds `charter` from this tree (or runs --charter BINARY), starts
// `charter serve` on a fresh SQLite database, registers a subject with one
// version and one with --versions versions, and measures each read path
// on both for --duration per round, alternating Charter, bare and peer
// within each of --rounds rounds; the table shows the median requests/s
// and the ratios of the medians. Then registration throughput (--writers
// writers, distinct subjects), a growing-record chain at FULL_TRANSITIVE
// (--chain versions, the latency curve) and the server's resident memory.
//
//	go run ./bench                       # Charter and bare
//	go run ./bench --peer http://127.0.0.1:8082 --markdown bench.md
//
// The numbers are only comparable within one run: the load generator
// shares the machine with the servers.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

const contentType = "application/vnd.schemaregistry.v1+json"

type options struct {
	charter   string
	peer      string
	duration  time.Duration
	rounds    int
	workers   int
	versions  int
	writers   int
	registers int
	chain     int
	peerChain bool
	markdown  string
	ordinary  int
	peerPID   int
	args      string
}

func main() {
	var o options
	flag.StringVar(&o.charter, "charter", "", "charter binary to run (default: go build ./cmd/charter from this tree)")
	flag.StringVar(&o.peer, "peer", "", "URL of a peer registry to measure alongside (its state is added to, never deleted)")
	flag.DurationVar(&o.duration, "duration", time.Second, "length of one measurement of one path on one server")
	flag.IntVar(&o.rounds, "rounds", 3, "rounds; each measures Charter, bare and peer in turn, the table shows medians")
	flag.IntVar(&o.workers, "workers", 8, "concurrent keep-alive clients of the read load")
	flag.IntVar(&o.versions, "versions", 1000, "versions of the large subject")
	flag.IntVar(&o.writers, "writers", 8, "concurrent writers of the registration load")
	flag.IntVar(&o.registers, "registers", 2000, "registrations (distinct subjects) per registration round")
	flag.IntVar(&o.chain, "chain", 1000, "versions of the growing-record chain at FULL_TRANSITIVE (0: skip)")
	flag.BoolVar(&o.peerChain, "peer-chain", false, "run the chain on the peer too (slow on some)")
	flag.IntVar(&o.ordinary, "ordinary", 0, "register this many more ordinary schemas at the end and report RSS after")
	flag.IntVar(&o.peerPID, "peer-pid", 0, "process ID of the peer on this machine: with --ordinary, the peer gets the same ordinary schemas and its RSS is reported beside Charter's")
	flag.StringVar(&o.markdown, "markdown", "", "write the tables as Markdown to this file")
	flag.StringVar(&o.args, "serve-args", "", "extra arguments for charter serve, space-separated")
	flag.Parse()
	if f := os.Getenv(bareEnv); f != "" {
		if err := serveBare(f); err != nil {
			fmt.Fprintln(os.Stderr, "bench: bare handler:", err)
			os.Exit(1)
		}
		return
	}
	if err := o.validate(); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// validate refuses, before anything runs, settings that would measure
// nothing or lose the result: counts and durations that are not
// positive, and a --markdown file that cannot be written.
func (o options) validate() error {
	for _, c := range []struct {
		flag string
		n    int
	}{{"--rounds", o.rounds}, {"--workers", o.workers}, {"--writers", o.writers}, {"--registers", o.registers}, {"--versions", o.versions}} {
		if c.n <= 0 {
			return fmt.Errorf("invalid %s %d: want a positive number", c.flag, c.n)
		}
	}
	if o.duration <= 0 {
		return fmt.Errorf("invalid --duration %s: want a positive duration such as 1s", o.duration)
	}
	if o.chain < 0 || o.ordinary < 0 {
		return fmt.Errorf("invalid --chain %d or --ordinary %d: want 0 (skip) or more", o.chain, o.ordinary)
	}
	if o.markdown != "" {
		f, err := os.OpenFile(o.markdown, os.O_WRONLY|os.O_CREATE, 0o644)
		if err != nil {
			return fmt.Errorf("--markdown: %w", err)
		}
		return f.Close()
	}
	return nil
}

// server is one side of the comparison.
type server struct {
	name string
	url  string
}

func run(o options) error {
	dir, err := os.MkdirTemp("", "charter-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin := o.charter
	if bin == "" {
		bin = filepath.Join(dir, "charter")
		fmt.Fprintln(os.Stderr, "building charter…")
		build := exec.Command("go", "build", "-o", bin, "./cmd/charter")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("go build ./cmd/charter (run from the module root): %w", err)
		}
	}
	addr, err := freeAddr()
	if err != nil {
		return err
	}
	args := []string{"serve", "--listen", addr, "--db", filepath.Join(dir, "bench.db"), "--log-level", "error", "--ui=false"}
	if o.args != "" {
		args = append(args, strings.Fields(o.args)...)
	}
	cmd := exec.Command(bin, args...)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	}()
	charter := server{name: "charter", url: "http://" + addr}
	if err := waitReady(charter.url); err != nil {
		return err
	}
	servers := []server{charter}
	var peer *server
	if o.peer != "" {
		peer = &server{name: "peer", url: strings.TrimRight(o.peer, "/")}
	}

	// State: a subject with one version and one with o.versions.
	run := strconv.FormatInt(time.Now().UnixNano()%1_000_000_000, 36)
	one, many := "bench-one-"+run, "bench-many-"+run
	setup := []server{charter}
	if peer != nil {
		setup = append(setup, *peer)
	}
	for _, s := range setup {
		fmt.Fprintf(os.Stderr, "setting up %s…\n", s.name)
		if err := prepare(s.url, one, many, o.versions); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
	}

	// The read paths, each as a request per server (IDs differ between
	// servers, so each builds its own).
	type path struct {
		name   string
		method string
		req    func(s server) (string, []byte, error) // url path and body
	}
	lastSchema := recordSchema(o.versions)
	paths := []path{}
	for _, subj := range []struct{ label, name, schema string }{{"1 version", one, recordSchema(1)}, {fmt.Sprintf("%d versions", o.versions), many, lastSchema}} {
		subj := subj
		paths = append(paths,
			path{"GET /schemas/ids/{id} (" + subj.label + ")", "GET", func(s server) (string, []byte, error) {
				id, err := latestID(s.url, subj.name)
				return "/schemas/ids/" + strconv.FormatInt(id, 10), nil, err
			}},
			path{"GET /subjects/{s}/versions/latest (" + subj.label + ")", "GET", func(server) (string, []byte, error) {
				return "/subjects/" + subj.name + "/versions/latest", nil, nil
			}},
			path{"GET /subjects/{s}/versions/{v} (" + subj.label + ")", "GET", func(server) (string, []byte, error) {
				return "/subjects/" + subj.name + "/versions/1", nil, nil
			}},
			path{"GET /subjects/{s}/versions (" + subj.label + ")", "GET", func(server) (string, []byte, error) {
				return "/subjects/" + subj.name + "/versions", nil, nil
			}},
			path{"POST /subjects/{s} lookup (" + subj.label + ")", "POST", func(server) (string, []byte, error) {
				return "/subjects/" + subj.name, schemaBody(subj.schema), nil
			}},
		)
	}
	paths = append(paths,
		path{"GET /subjects", "GET", func(server) (string, []byte, error) { return "/subjects", nil, nil }},
		path{"GET /config", "GET", func(server) (string, []byte, error) { return "/config", nil, nil }},
		path{"GET /mode", "GET", func(server) (string, []byte, error) { return "/mode", nil, nil }},
	)

	client := &http.Client{Transport: &http.Transport{MaxIdleConns: 4 * o.workers, MaxIdleConnsPerHost: 2 * o.workers, MaxConnsPerHost: 2 * o.workers}}
	var rows []row
	for _, p := range paths {
		target := map[string]request{}
		for _, s := range append(servers, setup[len(servers):]...) {
			u, body, err := p.req(s)
			if err != nil {
				return fmt.Errorf("%s on %s: %w", p.name, s.name, err)
			}
			target[s.name] = request{method: p.method, url: s.url + u, body: body}
		}
		header, want, err := target["charter"].capture(client)
		if err != nil {
			return fmt.Errorf("%s: %w", p.name, err)
		}
		bare, stop, err := bareServer(header, want)
		if err != nil {
			return err
		}
		target["bare"] = request{method: p.method, url: bare + "/x", body: target["charter"].body}
		order := []string{"charter", "bare"}
		if peer != nil {
			order = append(order, "peer")
		}
		for _, name := range order { // warm up each side (connections, caches)
			if _, err := load(client, target[name], o.workers, o.duration/5); err != nil {
				stop()
				return fmt.Errorf("%s on %s: %w", p.name, name, err)
			}
		}
		results := map[string][]float64{}
		for range o.rounds {
			for _, name := range order {
				rps, err := load(client, target[name], o.workers, o.duration)
				if err != nil {
					stop()
					return fmt.Errorf("%s on %s: %w", p.name, name, err)
				}
				results[name] = append(results[name], rps)
			}
		}
		stop()
		r := row{path: p.name, charter: median(results["charter"]), bare: median(results["bare"]), peer: median(results["peer"])}
		rows = append(rows, r)
		fmt.Fprintf(os.Stderr, "%-50s %s\n", r.path, r.cells(peer != nil))
	}

	// Registration throughput: o.writers writers, distinct subjects.
	var regs []regRow
	for _, s := range setup {
		var rates []float64
		for round := range o.rounds {
			rate, err := registerLoad(client, s.url, fmt.Sprintf("bench-reg-%s-%d", run, round), o.registers, o.writers)
			if err != nil {
				return fmt.Errorf("registration on %s: %w", s.name, err)
			}
			rates = append(rates, rate)
		}
		regs = append(regs, regRow{name: s.name, rate: median(rates), rates: rates})
		fmt.Fprintf(os.Stderr, "register %s: %.0f/s (rounds %s)\n", s.name, median(rates), fmtRates(rates))
	}

	// The growing-record chain.
	var chains []chainRow
	if o.chain > 0 {
		chainOn := []server{charter}
		if peer != nil && o.peerChain {
			chainOn = append(chainOn, *peer)
		}
		for _, s := range chainOn {
			lat, err := chain(client, s.url, "bench-chain-"+run, o.chain)
			if err != nil {
				return fmt.Errorf("chain on %s: %w", s.name, err)
			}
			c := chainRow{name: s.name, lat: lat}
			if s.name == "charter" {
				c.rss, c.hwm = rss(cmd.Process.Pid)
			}
			chains = append(chains, c)
			fmt.Fprintf(os.Stderr, "chain %s: %s\n", s.name, c.curve())
		}
	}
	rssNow, hwm := rss(cmd.Process.Pid)
	var ordinaryRSS string
	if o.ordinary > 0 {
		if _, err := registerLoad(client, charter.url, "bench-ordinary-"+run, o.ordinary, o.writers); err != nil {
			return err
		}
		r, h := rss(cmd.Process.Pid)
		ordinaryRSS = fmt.Sprintf("Charter after %d more ordinary schemas: RSS %s, peak %s", o.ordinary, r, h)
		if peer != nil && o.peerPID > 0 {
			if _, err := registerLoad(client, peer.url, "bench-ordinary-"+run, o.ordinary, o.writers); err != nil {
				return fmt.Errorf("ordinary schemas on the peer: %w", err)
			}
			pr, ph := rss(o.peerPID)
			ordinaryRSS += fmt.Sprintf("; the peer after the same: RSS %s, peak %s", pr, ph)
		}
		fmt.Fprintln(os.Stderr, ordinaryRSS)
	}

	out := report(o, rows, regs, chains, peer != nil, rssNow, hwm, ordinaryRSS)
	fmt.Print(out)
	if o.markdown != "" {
		return os.WriteFile(o.markdown, []byte(out), 0o644)
	}
	return nil
}

type row struct {
	path                string
	charter, bare, peer float64
}

func (r row) cells(withPeer bool) string {
	s := fmt.Sprintf("| %.0f | %.0f | %.2f |", r.charter, r.bare, r.charter/r.bare)
	if withPeer {
		s += fmt.Sprintf(" %.0f | %.2f |", r.peer, r.charter/r.peer)
	}
	return s
}

type regRow struct {
	name  string
	rate  float64
	rates []float64
}

type chainRow struct {
	name     string
	lat      []time.Duration
	rss, hwm string
}

func (c chainRow) curve() string {
	var parts []string
	for _, v := range checkpoints(len(c.lat)) {
		parts = append(parts, fmt.Sprintf("v%d %s", v, ms(c.lat[v-1])))
	}
	parts = append(parts, "last 10 median "+ms(c.tail()))
	if c.rss != "" {
		parts = append(parts, "RSS "+c.rss, "peak "+c.hwm)
	}
	return strings.Join(parts, ", ")
}

// tail is the median latency of the last 10 versions (fewer when the
// chain is shorter): one registration's latency is one sample on a
// shared machine.
func (c chainRow) tail() time.Duration {
	n := min(10, len(c.lat))
	xs := make([]float64, n)
	for i, d := range c.lat[len(c.lat)-n:] {
		xs[i] = float64(d)
	}
	return time.Duration(median(xs))
}

func checkpoints(n int) []int {
	var out []int
	for _, v := range []int{1, 10, 50, 100, 200, 500, 1000, 2000, 5000} {
		if v <= n {
			out = append(out, v)
		}
	}
	if len(out) == 0 || out[len(out)-1] != n {
		out = append(out, n)
	}
	return out
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }

func fmtRates(rs []float64) string {
	var s []string
	for _, r := range rs {
		s = append(s, fmt.Sprintf("%.0f", r))
	}
	return strings.Join(s, ", ")
}

func report(o options, rows []row, regs []regRow, chains []chainRow, withPeer bool, rssNow, hwm, ordinary string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Loopback, %d workers, %d rounds of %s per path and server (alternating), medians.\n\n", o.workers, o.rounds, o.duration)
	if withPeer {
		b.WriteString("| path | Charter req/s | bare req/s | Charter / bare | peer req/s | Charter / peer |\n|---|---:|---:|---:|---:|---:|\n")
	} else {
		b.WriteString("| path | Charter req/s | bare req/s | Charter / bare |\n|---|---:|---:|---:|\n")
	}
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s %s\n", r.path, r.cells(withPeer))
	}
	fmt.Fprintf(&b, "\nRegistration, %d writers, %d distinct subjects per round:\n\n| server | registrations/s (median) | rounds |\n|---|---:|---|\n", o.writers, o.registers)
	for _, r := range regs {
		fmt.Fprintf(&b, "| %s | %.0f | %s |\n", r.name, r.rate, fmtRates(r.rates))
	}
	if len(chains) > 0 {
		fmt.Fprintf(&b, "\nGrowing-record chain, FULL_TRANSITIVE, one optional field more per version (registration latency):\n\n| server |")
		cps := checkpoints(o.chain)
		for _, v := range cps {
			fmt.Fprintf(&b, " v%d |", v)
		}
		b.WriteString(" last 10, median | RSS after | peak RSS |\n|---|")
		for range cps {
			b.WriteString("---:|")
		}
		b.WriteString("---:|---:|---:|\n")
		for _, c := range chains {
			fmt.Fprintf(&b, "| %s |", c.name)
			for _, v := range cps {
				fmt.Fprintf(&b, " %s |", ms(c.lat[v-1]))
			}
			fmt.Fprintf(&b, " %s | %s | %s |\n", ms(c.tail()), orDash(c.rss), orDash(c.hwm))
		}
	}
	fmt.Fprintf(&b, "\nCharter's resident memory at the end: %s (peak %s).\n", rssNow, hwm)
	if ordinary != "" {
		fmt.Fprintf(&b, "%s.\n", ordinary)
	}
	return b.String()
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// request is one HTTP request, repeated by the load.
type request struct {
	method string
	url    string
	body   []byte
}

func (r request) do(c *http.Client) ([]byte, error) {
	_, b, err := r.capture(c)
	return b, err
}

// capture sends r once and returns the answer's headers and body; a
// status other than 200 is an error.
func (r request) capture(c *http.Client) (http.Header, []byte, error) {
	var body io.Reader
	if r.body != nil {
		body = bytes.NewReader(r.body)
	}
	req, err := http.NewRequest(r.method, r.url, body)
	if err != nil {
		return nil, nil, err
	}
	if r.body != nil {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, b, fmt.Errorf("%s %s: %d %s", r.method, r.url, resp.StatusCode, b)
	}
	return resp.Header, b, nil
}

// load runs workers clients repeating r for d and returns requests/s.
func load(c *http.Client, r request, workers int, d time.Duration) (float64, error) {
	var n atomic.Int64
	var first atomic.Pointer[error]
	deadline := time.Now().Add(d)
	start := time.Now()
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				if _, err := r.do(c); err != nil {
					first.CompareAndSwap(nil, &err)
					return
				}
				n.Add(1)
			}
		}()
	}
	wg.Wait()
	if e := first.Load(); e != nil {
		return 0, *e
	}
	return float64(n.Load()) / time.Since(start).Seconds(), nil
}

// bareEnv names the file of bytes a re-executed bench serves as the bare
// handler (serveBare).
const bareEnv = "CHARTER_BENCH_BARE_BODY"

// bareServer serves want to every request on a fresh loopback port, with
// the headers Charter answered it with (header; Date is net/http's own),
// from a process of its own (this binary re-executed), as Charter and a
// peer are: the baseline sends the same bytes, headers included (their
// size decides whether an answer fits net/http's 4 KiB connection buffer,
// one write or two), and shares the machine with the load generator the
// way they do, not its Go runtime.
func bareServer(header http.Header, want []byte) (string, func(), error) {
	f, err := os.CreateTemp("", "charter-bench-bare-")
	if err != nil {
		return "", nil, err
	}
	h := header.Clone()
	h.Del("Date")
	werr := h.Write(f)
	if werr == nil {
		_, werr = f.Write(append([]byte("\r\n"), want...))
	}
	if cerr := f.Close(); werr != nil || cerr != nil {
		os.Remove(f.Name())
		return "", nil, errors.Join(werr, cerr)
	}
	self, err := os.Executable()
	if err != nil {
		os.Remove(f.Name())
		return "", nil, err
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), bareEnv+"="+f.Name())
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		os.Remove(f.Name())
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		os.Remove(f.Name())
		return "", nil, err
	}
	stop := func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		os.Remove(f.Name())
	}
	var addr string
	if _, err := fmt.Fscanln(out, &addr); err != nil {
		stop()
		return "", nil, fmt.Errorf("bare handler did not print its address: %w", err)
	}
	return "http://" + addr, stop, nil
}

// serveBare is the bare handler's process: file holds header lines, a
// blank line and the body (bareServer); it serves them to every request on
// a fresh loopback port, after printing the port's address on stdout,
// until it is killed.
func serveBare(file string) error {
	raw, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	head, want, ok := bytes.Cut(raw, []byte("\r\n\r\n"))
	if !ok {
		return fmt.Errorf("%s: no blank line after the headers", file)
	}
	header := http.Header{}
	for _, line := range strings.Split(string(head), "\r\n") {
		if line == "" {
			continue
		}
		k, v, ok := strings.Cut(line, ": ")
		if !ok {
			return fmt.Errorf("%s: header line %q", file, line)
		}
		header.Add(k, v)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Println(ln.Addr().String())
	return http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		h := w.Header()
		for k, v := range header {
			h[k] = v
		}
		_, _ = w.Write(want)
	}))
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

func waitReady(url string) error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(url + "/health/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return errors.New("charter serve did not become ready in 30 s")
}

// recordSchema is an Avro record with n fields, each after the first
// optional with a default: version n+1 is compatible with version n
// both ways.
func recordSchema(n int) string {
	fields := []map[string]any{{"name": "id", "type": "long"}}
	for i := 2; i <= n; i++ {
		fields = append(fields, map[string]any{"name": fmt.Sprintf("f%d", i), "type": []any{"null", "string"}, "default": nil})
	}
	b, _ := json.Marshal(map[string]any{"type": "record", "name": "Bench", "namespace": "dev.charter.bench", "fields": fields})
	return string(b)
}

func schemaBody(schema string) []byte {
	b, _ := json.Marshal(map[string]string{"schema": schema})
	return b
}

func post(c *http.Client, url string, body []byte) ([]byte, error) {
	return request{method: "POST", url: url, body: body}.do(c)
}

func put(c *http.Client, url string, body string) error {
	_, err := request{method: "PUT", url: url, body: []byte(body)}.do(c)
	return err
}

// prepare registers subject one with one version and many with n (at
// compatibility NONE, so that setting up is fast).
func prepare(url, one, many string, n int) error {
	c := &http.Client{}
	if _, err := post(c, url+"/subjects/"+one+"/versions", schemaBody(recordSchema(1))); err != nil {
		return err
	}
	if err := put(c, url+"/config/"+many, `{"compatibility":"NONE"}`); err != nil {
		return err
	}
	for i := 1; i <= n; i++ {
		if _, err := post(c, url+"/subjects/"+many+"/versions", schemaBody(recordSchema(i))); err != nil {
			return err
		}
	}
	return nil
}

func latestID(url, subject string) (int64, error) {
	b, err := request{method: "GET", url: url + "/subjects/" + subject + "/versions/latest"}.do(http.DefaultClient)
	if err != nil {
		return 0, err
	}
	var v struct {
		ID int64 `json:"id"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return 0, err
	}
	return v.ID, nil
}

// registerLoad registers n distinct subjects (prefix-0 …) with writers
// concurrent writers and returns registrations/s.
func registerLoad(c *http.Client, url, prefix string, n, writers int) (float64, error) {
	var next atomic.Int64
	var first atomic.Pointer[error]
	var wg sync.WaitGroup
	start := time.Now()
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1)
				if i > int64(n) || first.Load() != nil {
					return
				}
				schema := fmt.Sprintf(`{"type":"record","name":"R%d","namespace":"dev.charter.bench","fields":[{"name":"id","type":"long"},{"name":"v%d","type":"string","default":""}]}`, i, i)
				if _, err := post(c, fmt.Sprintf("%s/subjects/%s-%d/versions", url, prefix, i), schemaBody(schema)); err != nil {
					first.CompareAndSwap(nil, &err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if e := first.Load(); e != nil {
		return 0, *e
	}
	return float64(n) / time.Since(start).Seconds(), nil
}

// chain registers versions 1..n of a record growing by one field each at
// FULL_TRANSITIVE and returns each registration's latency.
func chain(c *http.Client, url, subject string, n int) ([]time.Duration, error) {
	if err := put(c, url+"/config/"+subject, `{"compatibility":"FULL_TRANSITIVE"}`); err != nil {
		return nil, err
	}
	lat := make([]time.Duration, n)
	for i := 1; i <= n; i++ {
		start := time.Now()
		if _, err := post(c, url+"/subjects/"+subject+"/versions", schemaBody(recordSchema(i))); err != nil {
			return nil, fmt.Errorf("version %d: %w", i, err)
		}
		lat[i-1] = time.Since(start)
	}
	return lat, nil
}

// rss returns the resident and peak resident memory of pid, from
// /proc (Linux); "?" elsewhere.
func rss(pid int) (string, string) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return "?", "?"
	}
	var cur, peak string
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "VmRSS:":
			cur = fmt.Sprintf("%.0f MB", float64(kb)/1024)
		case "VmHWM:":
			peak = fmt.Sprintf("%.0f MB", float64(kb)/1024)
		}
	}
	return cur, peak
}
