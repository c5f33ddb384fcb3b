package browser

import (
	"context"
	"fmt"
	"strings"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"

	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// Evaluate takes a function ("() => document.title") or a plain
// expression ("document.title", "[...document.links].length"). The source
// is evaluated once, as an expression, inside a wrapper function: a value
// that is a function is called with the arguments (a function literal has
// no side effects to repeat), any other value is the result; either way a
// promise is awaited.

// wrapSource returns the function CallFunctionOn runs for src. src stands
// on lines of its own, so that a trailing line comment ends with its line.
func wrapSource(src string) string {
	return "async function (...args) {\nconst v = (\n" + src + "\n);\n" +
		"return typeof v === 'function' ? await v.apply(this, args) : await v;\n}"
}

// checkSource compiles src as an expression in s's page without running
// it. A syntax error is ErrInvalidArgument with the parser's message and
// its position in src (1-based line and column). A compile that cannot
// be tried (an old browser, a context in flux) is not an error: running
// the source then reports what is wrong.
func checkSource(ctx context.Context, s cdpapi.Session, src string) error {
	res, err := cdpapi.Call(ctx, s, runtime.CompileScript, runtime.CompileScriptParams{
		Expression: "(\n" + src + "\n)", SourceURL: "", PersistScript: false,
	})
	if err != nil {
		if cdp.IsProtocolError(err) {
			return nil
		}
		return fmt.Errorf("browser: compiling the source: %w", err)
	}
	d := res.ExceptionDetails
	if d == nil {
		return nil
	}
	msg := exceptionText(d)
	msg = strings.TrimPrefix(msg, "Uncaught ")
	// Line 0 is the wrapper's "("; the source's first line is line 1.
	line, col := d.LineNumber, d.ColumnNumber+1
	if line < 1 {
		line = 1
	}
	lines := strings.Split(src, "\n")
	if int(line) > len(lines) { // the error is at the closing ")": the source ended early
		line = int64(len(lines))
		col = int64(len(lines[line-1])) + 1
	}
	return fmt.Errorf("%w: %s at line %d, column %d", driver.ErrInvalidArgument, msg, line, col)
}
