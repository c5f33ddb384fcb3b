package tools

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/lighthouse"
	"github.com/cdpkit/cdpkit/internal/policy"
)

// lighthouseTimeout is lighthouse_audit's deadline when the call gives no
// timeout_ms: an audit loads the page several times.
const lighthouseTimeout = MaxTimeout

// maxFailingAudits is how many failing audits the result lists.
const maxFailingAudits = 10

// defaultLighthouse runs audits when Env.Lighthouse is nil.
var defaultLighthouse = &lighthouse.Runner{}

type lighthouseArgs struct {
	Target     string   `json:"target,omitempty"`
	URL        string   `json:"url,omitempty" jsonschema:"page to audit (default: the tab's URL)"`
	Categories []string `json:"categories,omitempty" jsonschema:"of performance, accessibility, best-practices, seo (default: all)"`
	FormFactor string   `json:"formFactor,omitempty" jsonschema:"mobile (default) or desktop"`
}

func lighthouseTools() []Tool {
	return []Tool{
		defineOn(Tool{
			Name: "lighthouse_audit",
			Description: "Lighthouse audit of a page (default: the tab's URL) in a separate headless browser with the tab's cookies: " +
				"category scores, the 10 heaviest failing audits, HTML and JSON report paths. Needs Node.js and npm " +
				"(LIGHTHOUSE_UNAVAILABLE without); installs lighthouse on first use. Takes 20-60 s.",
			ReadOnly: true,
			Timeout:  lighthouseTimeout,
		}, lighthouseAudit),
	}
}

func (in *lighthouseArgs) check(ctx context.Context, env *Env) error {
	for _, c := range in.Categories {
		if !slices.Contains(lighthouse.Categories, c) {
			return errorf(InvalidArgs, false, "use "+strings.Join(lighthouse.Categories, ", "), "unknown category %q", c)
		}
	}
	switch in.FormFactor {
	case "", "mobile", "desktop":
	default:
		return errorf(InvalidArgs, false, "use mobile or desktop", "unknown formFactor %q", in.FormFactor)
	}
	if in.URL != "" {
		return env.checkURL(ctx, in.URL)
	}
	return nil
}

// lighthouseData is lighthouse_audit's result.
type lighthouseData struct {
	*lighthouse.Summary
	FormFactor string `json:"formFactor"`
	ReportJSON string `json:"reportJson"`
	ReportHTML string `json:"reportHtml"`
}

func lighthouseAudit(ctx context.Context, env *Env, d *door, in lighthouseArgs) (*Result, error) {
	runner := env.Lighthouse
	if runner == nil {
		runner = defaultLighthouse
	}
	stage := func(msg string) { progress(ctx, msg) }
	defer heartbeat(ctx, "auditing with lighthouse")()
	node, cli, err := runner.Ensure(ctx, stage)
	if err != nil {
		return nil, err
	}
	url := in.URL
	if url == "" {
		loc, err := d.tab.Location(ctx)
		if err != nil {
			return nil, err
		}
		url = loc.URL
		if !strings.HasPrefix(url, "http://") && !strings.HasPrefix(url, "https://") {
			return nil, errorf(InvalidArgs, false, "navigate the tab to a web page first, or give url", "the tab shows %q, not a web page", url)
		}
		if err := env.checkURL(ctx, url); err != nil {
			return nil, err
		}
	}
	progress(ctx, "starting the audit browser")
	cs, err := role[driver.CookieStore](env, d.tab, "cookies")
	if err != nil {
		return nil, err
	}
	cookies, err := cs.Cookies(ctx, nil)
	if err != nil {
		return nil, err
	}
	auditor, err := role[driver.Auditor](env, env.Browsers.Backend(), "starting an audit browser")
	if err != nil {
		return nil, err
	}
	ab, err := auditor.StartAuditBrowser(ctx, cookies)
	if err != nil {
		return nil, err
	}
	defer ab.Close()
	out, err := os.MkdirTemp("", "cdpkit-lighthouse-")
	if err != nil {
		return nil, fmt.Errorf("tools: lighthouse scratch dir: %w", err)
	}
	defer os.RemoveAll(out)
	formFactor := cmp.Or(in.FormFactor, "mobile")
	files, err := runner.Run(ctx, node, cli, lighthouse.Audit{URL: url, Port: ab.Port(), Categories: in.Categories,
		FormFactor: formFactor, OutDir: out}, stage)
	if err != nil {
		return nil, err
	}
	progress(ctx, "reading the report")
	f, err := policy.OpenRegular(files.JSON)
	if err != nil {
		return nil, fmt.Errorf("tools: reading the lighthouse report: %w", err)
	}
	sum, err := lighthouse.Summarize(f, maxFailingAudits)
	f.Close()
	if err != nil {
		return nil, err
	}
	// The reports go into the artifact dir the way every artifact does: a
	// temporary file renamed into place once whole.
	id := strings.ToLower(d.tab.ID())
	base := filepath.Join("lighthouse", time.Now().Format("20060102-150405.000")+"-"+id[:min(6, len(id))])
	data := lighthouseData{Summary: sum, FormFactor: formFactor}
	if data.ReportJSON, err = copyArtifact(env, base+".report.json", files.JSON); err != nil {
		return nil, err
	}
	if data.ReportHTML, err = copyArtifact(env, base+".report.html", files.HTML); err != nil {
		return nil, err
	}
	return &Result{Data: data}, nil
}

// copyArtifact copies the file at src into the artifact dir as name.
func copyArtifact(env *Env, name, src string) (string, error) {
	return env.Artifacts.Write(name, func(w io.Writer) error {
		f, err := policy.OpenRegular(src)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(w, f)
		return err
	})
}

func init() {
	typed(func(_ error, e *lighthouse.UnavailableError) *Error {
		return &Error{Code: LighthouseUnavailable, Message: e.Error(), Hint: e.Hint}
	})
	typed(func(_ error, e *lighthouse.RunError) *Error {
		return &Error{Code: AuditFailed, Message: e.Error(), Recoverable: true,
			Hint: "check that the page loads (navigate_page), then retry; raise timeout_ms on a slow page"}
	})
}
