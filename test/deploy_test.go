package test

// Checks of the deployment files in ../deploy. They build and run nothing
// (there may be no Docker engine or cluster): they parse every YAML file and
// the Dockerfile, and hold the files to the rules the service depends on.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/readinglibrary/service/cmd/libraryd/app"
)

const deployDir = "../deploy"

// deployYAMLDoc is one document of a YAML file under deploy/.
type deployYAMLDoc struct {
	file  string // relative to deploy/
	index int    // 0-based position in the file
	root  map[string]any
}

func (d deployYAMLDoc) String() string { return fmt.Sprintf("%s (document %d)", d.file, d.index+1) }

// deployLoadYAML parses every .yaml/.yml file under deploy/, all documents
// of each, and fails the test on any parse error or non-mapping document.
func deployLoadYAML(t *testing.T) []deployYAMLDoc {
	t.Helper()
	var docs []deployYAMLDoc
	files := 0
	err := filepath.WalkDir(deployDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !(strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
			return nil
		}
		files++
		rel, _ := filepath.Rel(deployDir, path)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		dec := yaml.NewDecoder(bytes.NewReader(data))
		for i := 0; ; i++ {
			var v any
			err := dec.Decode(&v)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Errorf("%s: YAML document %d does not parse: %v", rel, i+1, err)
				break
			}
			if v == nil {
				continue // an empty document, e.g. after a trailing ---
			}
			m, ok := v.(map[string]any)
			if !ok {
				t.Errorf("%s: YAML document %d is a %T, want a mapping", rel, i+1, v)
				continue
			}
			docs = append(docs, deployYAMLDoc{file: filepath.ToSlash(rel), index: i, root: m})
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walk %s: %v", deployDir, err)
	}
	if files == 0 {
		t.Fatalf("no YAML files under %s", deployDir)
	}
	return docs
}

// ---------------------------------------------------------------- Dockerfile

// deployInstruction is one Dockerfile instruction, continuation lines joined.
type deployInstruction struct {
	line int    // where it starts
	cmd  string // upper case, e.g. COPY
	args string
}

var deployDockerInstructions = map[string]bool{
	"FROM": true, "RUN": true, "CMD": true, "LABEL": true, "EXPOSE": true, "ENV": true, "ADD": true,
	"COPY": true, "ENTRYPOINT": true, "VOLUME": true, "USER": true, "WORKDIR": true, "ARG": true,
	"ONBUILD": true, "STOPSIGNAL": true, "HEALTHCHECK": true, "SHELL": true,
}

// deployParseDockerfile splits a Dockerfile into instructions the way the
// builder does: comment lines are dropped (also inside continued
// instructions), a trailing backslash continues the instruction, and every
// instruction must be a known one. Exec forms must be JSON string arrays.
// Heredocs are not supported and are reported as errors.
func deployParseDockerfile(data []byte) ([]deployInstruction, error) {
	var out []deployInstruction
	var cur *deployInstruction
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), " \t\r")
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		cont := strings.HasSuffix(line, `\`)
		if cont {
			line = strings.TrimSuffix(line, `\`)
		}
		if cur == nil {
			word, rest, _ := strings.Cut(strings.TrimSpace(line), " ")
			cmd := strings.ToUpper(word)
			if !deployDockerInstructions[cmd] {
				return nil, fmt.Errorf("line %d: unknown instruction %q", n, word)
			}
			cur = &deployInstruction{line: n, cmd: cmd, args: strings.TrimSpace(rest)}
		} else {
			cur.args += " " + strings.TrimSpace(line)
		}
		if !cont {
			out = append(out, *cur)
			cur = nil
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if cur != nil {
		return nil, fmt.Errorf("line %d: the file ends inside a continued %s", cur.line, cur.cmd)
	}
	seenFrom := false
	for _, in := range out {
		if strings.Contains(in.args, "<<") && (in.cmd == "RUN" || in.cmd == "COPY") {
			return nil, fmt.Errorf("line %d: heredocs are not supported by this check", in.line)
		}
		switch in.cmd {
		case "ARG":
		case "FROM":
			seenFrom = true
		default:
			if !seenFrom {
				return nil, fmt.Errorf("line %d: %s before the first FROM", in.line, in.cmd)
			}
		}
		if in.args == "" {
			return nil, fmt.Errorf("line %d: %s has no arguments", in.line, in.cmd)
		}
		if strings.HasPrefix(in.args, "[") && (in.cmd == "CMD" || in.cmd == "ENTRYPOINT" || in.cmd == "RUN" || in.cmd == "SHELL") {
			var arr []string
			if err := json.Unmarshal([]byte(in.args), &arr); err != nil {
				return nil, fmt.Errorf("line %d: %s exec form is not a JSON string array: %v", in.line, in.cmd, err)
			}
		}
	}
	if !seenFrom {
		return nil, errors.New("no FROM instruction")
	}
	return out, nil
}

// deployStage is one FROM ... AS ... stage with its instructions.
type deployStage struct {
	image string // with global ARG defaults substituted
	name  string
	body  []deployInstruction
}

var deployArgRef = regexp.MustCompile(`\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?`)

func deployStages(ins []deployInstruction) []deployStage {
	globals := map[string]string{}
	var stages []deployStage
	for _, in := range ins {
		if in.cmd == "ARG" && len(stages) == 0 {
			name, def, _ := strings.Cut(in.args, "=")
			globals[strings.TrimSpace(name)] = strings.Trim(strings.TrimSpace(def), `"`)
			continue
		}
		if in.cmd == "FROM" {
			var image, name string
			for _, f := range strings.Fields(in.args) {
				switch {
				case strings.HasPrefix(f, "--"):
				case image == "":
					image = f
				case strings.EqualFold(f, "AS"):
				default:
					name = f
				}
			}
			image = deployArgRef.ReplaceAllStringFunc(image, func(ref string) string {
				return globals[deployArgRef.FindStringSubmatch(ref)[1]]
			})
			stages = append(stages, deployStage{image: image, name: name})
			continue
		}
		if len(stages) > 0 {
			stages[len(stages)-1].body = append(stages[len(stages)-1].body, in)
		}
	}
	return stages
}

// TestDeployDockerfile checks the service image: deploy/images.sh builds the
// static binary on the host (no registry is needed for a Go image) and
// deploy/Dockerfile copies it onto scratch or distroless.
func TestDeployDockerfile(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(deployDir, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	ins, err := deployParseDockerfile(data)
	if err != nil {
		t.Fatalf("deploy/Dockerfile does not parse: %v", err)
	}
	stages := deployStages(ins)
	final := stages[len(stages)-1]

	script, err := os.ReadFile(filepath.Join(deployDir, "images.sh"))
	if err != nil {
		t.Fatal(err)
	}
	buildCmd := ""
	for _, line := range strings.Split(string(script), "\n") {
		if strings.Contains(line, "go build") && strings.Contains(line, "./cmd/libraryd") {
			buildCmd = line
		}
	}
	if buildCmd == "" {
		t.Error("deploy/images.sh has no go build of ./cmd/libraryd")
	} else if !strings.Contains(buildCmd, "-trimpath") {
		t.Errorf("the go build command lacks -trimpath: %s", buildCmd)
	}
	if !regexp.MustCompile(`(?m)^export CGO_ENABLED=0$`).Match(script) && !strings.Contains(buildCmd, "CGO_ENABLED=0") {
		t.Error("deploy/images.sh does not build with CGO_ENABLED=0 (the image has no libc)")
	}

	distrolessNonroot := strings.HasPrefix(final.image, "gcr.io/distroless/static") && strings.Contains(final.image, ":nonroot")
	if !distrolessNonroot && final.image != "scratch" {
		t.Errorf("runtime image = %q, want distroless static nonroot or scratch", final.image)
	}
	user, health := "", ""
	exposes8080, copiesBinary := false, false
	for _, in := range final.body {
		switch in.cmd {
		case "USER":
			user = in.args
		case "EXPOSE":
			exposes8080 = exposes8080 || slices.Contains(strings.Fields(in.args), "8080") || slices.Contains(strings.Fields(in.args), "8080/tcp")
		case "HEALTHCHECK":
			health = in.args
		case "COPY":
			for _, f := range strings.Fields(in.args) {
				if from, ok := strings.CutPrefix(f, "--from="); ok && !strings.Contains(from, "/") {
					t.Errorf("line %d: COPY --from=%s names no earlier stage", in.line, from)
				}
			}
			copiesBinary = copiesBinary || strings.HasSuffix(in.args, "/usr/local/bin/libraryd")
		}
	}
	if !copiesBinary {
		t.Error("the runtime stage does not COPY the binary to /usr/local/bin/libraryd")
	}
	if !exposes8080 {
		t.Error("the runtime stage does not EXPOSE 8080")
	}
	if !strings.Contains(health, `"/usr/local/bin/libraryd", "healthcheck"`) {
		t.Errorf("HEALTHCHECK = %q, want the binary's own readiness probe (libraryd healthcheck)", health)
	}
	uid, _, _ := strings.Cut(user, ":")
	if !regexp.MustCompile(`^[0-9]+$`).MatchString(uid) || uid == "0" {
		t.Errorf("runtime USER = %q, want a numeric non-root uid (Kubernetes runAsNonRoot checks it)", user)
	}
}

// ---------------------------------------------------------------- settings

var deploySettingName = regexp.MustCompile(`\bLIBRARY_[A-Z0-9_]+`)

// TestDeploySettingsAreKnown finds every LIBRARY_* name anywhere under
// deploy/ (YAML env entries and keys, .env.example, the Dockerfile, Markdown,
// scripts) and requires each to be a setting the service reads. A name
// ending in "_" (as in LIBRARY_BOOTSTRAP_ADMIN_*) must prefix one.
func TestDeploySettingsAreKnown(t *testing.T) {
	known := map[string]bool{}
	for _, s := range app.Settings {
		known[s.Name] = true
	}
	isKnown := func(name string) bool {
		if strings.HasSuffix(name, "_") {
			for k := range known {
				if strings.HasPrefix(k, name) {
					return true
				}
			}
			return false
		}
		return known[name]
	}

	found := map[string][]string{} // name -> places
	err := filepath.WalkDir(deployDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.IndexByte(data, 0) >= 0 {
			return nil // binary
		}
		rel, _ := filepath.Rel(deployDir, path)
		for i, line := range strings.Split(string(data), "\n") {
			for _, name := range deploySettingName.FindAllString(line, -1) {
				found[name] = append(found[name], fmt.Sprintf("%s:%d", filepath.ToSlash(rel), i+1))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) < 10 {
		t.Fatalf("found only %d LIBRARY_* names under deploy/; is the directory there?", len(found))
	}
	// A retired setting may be named in the guides, where they tell how
	// to move from the earlier version that read it; nowhere else.
	retired := map[string]bool{}
	for _, r := range app.RetiredSettings {
		retired[r.Name] = true
	}
	var names []string
	for n := range found {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if retired[n] {
			for _, place := range found[n] {
				if !strings.HasSuffix(strings.SplitN(place, ":", 2)[0], ".md") {
					t.Errorf("%s is a retired setting; it is used at %s", n, place)
				}
			}
			continue
		}
		if !isKnown(n) {
			t.Errorf("%s is not a setting of the service (app.Settings); used at %s", n, strings.Join(found[n], ", "))
		}
	}

	// The names that actually configure something must be exact: env entries
	// of Kubernetes containers and compose services, ConfigMap and Secret keys.
	for _, doc := range deployLoadYAML(t) {
		for _, name := range deployConfiguredNames(doc.root) {
			if strings.HasPrefix(name, "LIBRARY_") && !known[name] {
				t.Errorf("%s sets %s, which the service does not read", doc, name)
			}
		}
	}
}

// deployConfiguredNames returns the environment variable names a document
// sets: ConfigMap/Secret keys, container env names and compose environment.
func deployConfiguredNames(root map[string]any) []string {
	var out []string
	switch root["kind"] {
	case "ConfigMap", "Secret":
		for _, field := range []string{"data", "stringData"} {
			if m, ok := root[field].(map[string]any); ok {
				for k := range m {
					out = append(out, k)
				}
			}
		}
	}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, child := range v {
				if k == "env" {
					if list, ok := child.([]any); ok {
						for _, e := range list {
							if em, ok := e.(map[string]any); ok {
								if n, ok := em["name"].(string); ok {
									out = append(out, n)
								}
							}
						}
					}
				}
				if k == "environment" {
					switch env := child.(type) {
					case map[string]any:
						for n := range env {
							out = append(out, n)
						}
					case []any:
						for _, e := range env {
							if s, ok := e.(string); ok {
								n, _, _ := strings.Cut(s, "=")
								out = append(out, n)
							}
						}
					}
				}
				walk(child)
			}
		case []any:
			for _, child := range v {
				walk(child)
			}
		}
	}
	walk(root)
	return out
}

// ---------------------------------------------------------------- Kubernetes

func deployDig(v any, path ...string) any {
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

func deployKind(docs []deployYAMLDoc, kind string) []deployYAMLDoc {
	var out []deployYAMLDoc
	for _, d := range docs {
		if d.root["kind"] == kind && d.root["apiVersion"] != nil {
			out = append(out, d)
		}
	}
	return out
}

func deployName(d deployYAMLDoc) string {
	s, _ := deployDig(d.root, "metadata", "name").(string)
	return s
}

func TestDeployKubernetes(t *testing.T) {
	docs := deployLoadYAML(t)

	deployments := deployKind(docs, "Deployment")
	if len(deployments) != 1 {
		t.Fatalf("found %d Deployments under deploy/, want 1", len(deployments))
	}
	dep := deployments[0]
	pod, _ := deployDig(dep.root, "spec", "template", "spec").(map[string]any)
	if pod == nil {
		t.Fatalf("%s has no spec.template.spec", dep)
	}
	if r, _ := deployDig(dep.root, "spec", "replicas").(int); r < 2 {
		t.Errorf("%s: replicas = %v, want at least 2", dep, deployDig(dep.root, "spec", "replicas"))
	}
	containers, _ := pod["containers"].([]any)
	if len(containers) == 0 {
		t.Fatalf("%s has no containers", dep)
	}

	configMaps := map[string]map[string]any{}
	for _, d := range deployKind(docs, "ConfigMap") {
		data, _ := d.root["data"].(map[string]any)
		configMaps[deployName(d)] = data
	}
	secrets := map[string]bool{}
	for _, d := range deployKind(docs, "Secret") {
		secrets[deployName(d)] = true
		for _, field := range []string{"stringData", "data"} {
			m, _ := d.root[field].(map[string]any)
			for k, v := range m {
				if s, _ := v.(string); !strings.Contains(s, "CHANGE-ME") {
					t.Errorf("%s: %s.%s must be a CHANGE-ME placeholder, never a real value", d, field, k)
				}
			}
		}
	}

	podNonRoot, _ := deployDig(pod, "securityContext", "runAsNonRoot").(bool)
	podUser, podUserSet := deployDig(pod, "securityContext", "runAsUser").(int)
	shutdown := 0 * time.Second
	for _, s := range app.Settings {
		if s.Name == "LIBRARY_SHUTDOWN_TIMEOUT" {
			shutdown, _ = time.ParseDuration(s.Default)
		}
	}
	for _, c := range containers {
		cm, _ := c.(map[string]any)
		name, _ := cm["name"].(string)
		where := fmt.Sprintf("%s container %q", dep, name)

		if p, _ := deployDig(cm, "readinessProbe", "httpGet", "path").(string); p != "/readyz" {
			t.Errorf("%s: readinessProbe path = %q, want /readyz", where, p)
		}
		if p, _ := deployDig(cm, "livenessProbe", "httpGet", "path").(string); p != "/healthz" {
			t.Errorf("%s: livenessProbe path = %q, want /healthz (liveness must not depend on the database)", where, p)
		}

		nonRoot := podNonRoot
		if v, ok := deployDig(cm, "securityContext", "runAsNonRoot").(bool); ok {
			nonRoot = v
		}
		if !nonRoot {
			t.Errorf("%s: runAsNonRoot is not true", where)
		}
		user, userSet := podUser, podUserSet
		if v, ok := deployDig(cm, "securityContext", "runAsUser").(int); ok {
			user, userSet = v, true
		}
		if userSet && user == 0 {
			t.Errorf("%s: runAsUser is 0", where)
		}
		if ro, _ := deployDig(cm, "securityContext", "readOnlyRootFilesystem").(bool); !ro {
			t.Errorf("%s: readOnlyRootFilesystem is not true", where)
		}
		if pe, ok := deployDig(cm, "securityContext", "allowPrivilegeEscalation").(bool); !ok || pe {
			t.Errorf("%s: allowPrivilegeEscalation is not false", where)
		}
		if deployDig(cm, "resources", "requests", "cpu") == nil {
			t.Errorf("%s: no CPU request (the HorizontalPodAutoscaler needs one)", where)
		}

		envFrom, _ := cm["envFrom"].([]any)
		for _, e := range envFrom {
			if n, ok := deployDig(e, "configMapRef", "name").(string); ok {
				data, exists := configMaps[n]
				if !exists {
					t.Errorf("%s: envFrom names ConfigMap %q, which deploy/ does not define", where, n)
				}
				if v, ok := data["LIBRARY_SHUTDOWN_TIMEOUT"].(string); ok {
					d, err := time.ParseDuration(v)
					if err != nil {
						t.Errorf("ConfigMap %s: LIBRARY_SHUTDOWN_TIMEOUT %q: %v", n, v, err)
					}
					shutdown = d
				}
			}
			if n, ok := deployDig(e, "secretRef", "name").(string); ok && !secrets[n] {
				t.Errorf("%s: envFrom names Secret %q, which deploy/ does not define", where, n)
			}
		}
		if s, ok := deployDig(cm, "lifecycle", "preStop", "sleep", "seconds").(int); ok {
			shutdown += time.Duration(s) * time.Second
		}
	}
	grace, ok := pod["terminationGracePeriodSeconds"].(int)
	if !ok {
		t.Errorf("%s: terminationGracePeriodSeconds is not set (the default 30 s is not tied to LIBRARY_SHUTDOWN_TIMEOUT)", dep)
	} else if time.Duration(grace)*time.Second <= shutdown {
		t.Errorf("%s: terminationGracePeriodSeconds = %d s, want more than LIBRARY_SHUTDOWN_TIMEOUT plus the preStop sleep (%s)", dep, grace, shutdown)
	}

	podLabels, _ := deployDig(dep.root, "spec", "template", "metadata", "labels").(map[string]any)
	services := deployKind(docs, "Service")
	if len(services) == 0 {
		t.Error("no Service under deploy/kubernetes")
	}
	for _, s := range services {
		if typ, _ := deployDig(s.root, "spec", "type").(string); typ != "" && typ != "ClusterIP" {
			t.Errorf("%s: type %s exposes the service; only oauth2-proxy may be reachable from outside", s, typ)
		}
		sel, _ := deployDig(s.root, "spec", "selector").(map[string]any)
		if len(sel) == 0 {
			t.Errorf("%s: no selector", s)
		}
		for k, v := range sel {
			if podLabels[k] != v {
				t.Errorf("%s: selector %s=%v does not match the Deployment's pod labels", s, k, v)
			}
		}
	}

	hpas := deployKind(docs, "HorizontalPodAutoscaler")
	if len(hpas) == 0 {
		t.Error("no HorizontalPodAutoscaler under deploy/kubernetes")
	}
	for _, h := range hpas {
		if h.root["apiVersion"] != "autoscaling/v2" {
			t.Errorf("%s: apiVersion %v, want autoscaling/v2", h, h.root["apiVersion"])
		}
		if n, _ := deployDig(h.root, "spec", "scaleTargetRef", "name").(string); n != deployName(dep) {
			t.Errorf("%s: scaleTargetRef %q, want the Deployment %q", h, n, deployName(dep))
		}
		cpu := false
		metrics, _ := deployDig(h.root, "spec", "metrics").([]any)
		for _, m := range metrics {
			cpu = cpu || deployDig(m, "resource", "name") == "cpu"
		}
		if !cpu {
			t.Errorf("%s: no CPU metric", h)
		}
	}

	// kustomization.yaml lists exactly the manifests beside it.
	for _, k := range deployKind(docs, "Kustomization") {
		dir := filepath.Join(deployDir, filepath.Dir(k.file))
		listed := map[string]bool{}
		resources, _ := k.root["resources"].([]any)
		for _, r := range resources {
			s, _ := r.(string)
			listed[s] = true
			if _, err := os.Stat(filepath.Join(dir, s)); err != nil {
				t.Errorf("%s lists %s: %v", k, s, err)
			}
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			n := e.Name()
			if (strings.HasSuffix(n, ".yaml") || strings.HasSuffix(n, ".yml")) && n != filepath.Base(k.file) && !listed[n] {
				t.Errorf("%s does not list %s", k, n)
			}
		}
	}
}

// ---------------------------------------------------------------- compose

func TestDeployCompose(t *testing.T) {
	// One compose file, compose.yaml; compose.<name>.yaml files beside it
	// are overrides (compose.local.yaml swaps in the locally built images).
	var compose *deployYAMLDoc
	var overrides []deployYAMLDoc
	docs := deployLoadYAML(t)
	for i, d := range docs {
		if _, ok := d.root["services"].(map[string]any); ok && d.root["kind"] == nil {
			switch {
			case d.file == "compose.yaml":
				compose = &docs[i]
			case strings.HasPrefix(d.file, "compose.") && !strings.Contains(d.file, "/"):
				overrides = append(overrides, d)
			default:
				t.Errorf("%s: a compose file that is neither compose.yaml nor an override compose.<name>.yaml beside it", d)
			}
		}
	}
	if compose == nil {
		t.Fatal("no compose file (deploy/compose.yaml with services:)")
	}
	services := compose.root["services"].(map[string]any)
	for _, o := range overrides {
		for name, s := range o.root["services"].(map[string]any) {
			if _, ok := services[name]; !ok {
				t.Errorf("%s: overrides service %s, which compose.yaml does not define", o, name)
			}
			for _, key := range []string{"ports", "network_mode", "command", "entrypoint"} {
				if deployDig(s, key) != nil && (key == "ports" || key == "network_mode" || strings.Contains(fmt.Sprint(deployDig(services[name], "image")), "oauth2-proxy")) {
					t.Errorf("%s: service %s sets %s; an override may not publish ports, change networking or the proxy's flags", o, name, key)
				}
			}
		}
	}

	proxyName, serviceName := "", ""
	for name, s := range services {
		image, _ := deployDig(s, "image").(string)
		if strings.Contains(image, "oauth2-proxy") {
			proxyName = name
		}
		if df, _ := deployDig(s, "build", "dockerfile").(string); strings.HasSuffix(df, "Dockerfile") {
			serviceName = name
		}
	}
	if proxyName == "" || serviceName == "" {
		t.Fatalf("%s: want an oauth2-proxy service and one built from deploy/Dockerfile; found proxy %q, service %q", compose, proxyName, serviceName)
	}

	// Only the proxy is reachable from outside the compose network.
	for name, s := range services {
		if deployDig(s, "network_mode") == "host" {
			t.Errorf("%s: service %s uses the host network, which publishes every port it listens on", compose, name)
		}
		if name == proxyName {
			continue
		}
		if ports := deployDig(s, "ports"); ports != nil {
			what := "only oauth2-proxy may publish a port"
			if name == serviceName {
				what = "the service must be reachable only through oauth2-proxy"
			}
			t.Errorf("%s: service %s publishes ports %v: %s", compose, name, ports, what)
		}
	}
	if deployDig(services[proxyName], "ports") == nil {
		t.Errorf("%s: oauth2-proxy publishes no port, so nothing can reach the service", compose)
	}

	// The proxy's flags: bearer tokens verified, passed on, JSON errors, and
	// skip-auth routes safe on v7.8.1.
	var flags []string
	cmd, _ := deployDig(services[proxyName], "command").([]any)
	for _, c := range cmd {
		if s, ok := c.(string); ok {
			flags = append(flags, strings.ReplaceAll(s, "$$", "$")) // compose's escaped $
		}
	}
	hasFlag := func(name string) bool {
		for _, f := range flags {
			if f == name || strings.HasPrefix(f, name+"=") {
				return true
			}
		}
		return false
	}
	for _, want := range []string{"--skip-jwt-bearer-tokens", "--extra-jwt-issuers", "--pass-authorization-header", "--force-json-errors"} {
		if !hasFlag(want) {
			t.Errorf("%s: oauth2-proxy lacks %s", compose, want)
		}
	}
	for _, banned := range []string{"--ping-user-agent", "--gcp-healthchecks", "--skip-auth-regex"} {
		if hasFlag(banned) {
			t.Errorf("%s: oauth2-proxy uses %s, affected by advisories on v7.8.1 (deploy/OPERATIONS.md)", compose, banned)
		}
	}
	usesSkipRoutes := false
	for _, f := range flags {
		route, ok := strings.CutPrefix(f, "--skip-auth-route=")
		if !ok {
			continue
		}
		usesSkipRoutes = true
		if _, rest, hasMethod := strings.Cut(route, "="); hasMethod {
			route = rest
		}
		if !strings.HasPrefix(route, "^") || !strings.HasSuffix(route, "$") {
			t.Errorf("%s: skip-auth route %q is not anchored with ^ and $ (v7.8.1 matches it against path and query)", compose, route)
		}
		if _, err := regexp.Compile(route); err != nil {
			t.Errorf("%s: skip-auth route %q: %v", compose, route, err)
		}
	}
	if usesSkipRoutes && hasFlag("--reverse-proxy") && !hasFlag("--trusted-proxy-ip") {
		t.Errorf("%s: --reverse-proxy with skip-auth routes and no --trusted-proxy-ip is the X-Forwarded-Uri bypass (GHSA-7x63-xv5r-3p2x)", compose)
	}
	upstream := ""
	for _, f := range flags {
		if u, ok := strings.CutPrefix(f, "--upstream="); ok {
			upstream = u
		}
	}
	if !strings.HasPrefix(upstream, "http://"+serviceName+":8080") {
		t.Errorf("%s: oauth2-proxy --upstream=%q, want http://%s:8080/", compose, upstream, serviceName)
	}

	// Every ${VAR} the compose file reads is documented in .env.example, and
	// the example holds no secret.
	example, err := os.ReadFile(filepath.Join(deployDir, ".env.example"))
	if err != nil {
		t.Fatalf("deploy/.env.example: %v", err)
	}
	documented := map[string]string{}
	for _, line := range strings.Split(string(example), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			t.Errorf("deploy/.env.example: %q is not NAME=value", line)
			continue
		}
		documented[k] = v
		upper := strings.ToUpper(k)
		if (strings.Contains(upper, "PASSWORD") || strings.Contains(upper, "SECRET")) && v != "CHANGE-ME" && v != "" {
			t.Errorf("deploy/.env.example: %s must be the CHANGE-ME placeholder, never a real secret", k)
		}
	}
	raw, err := os.ReadFile(filepath.Join(deployDir, compose.file))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(raw), "$$", "")
	for _, m := range regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)`).FindAllStringSubmatch(text, -1) {
		if _, ok := documented[m[1]]; !ok {
			t.Errorf("%s reads ${%s}, which deploy/.env.example does not document", compose.file, m[1])
		}
	}
}
