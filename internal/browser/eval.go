package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	cdpapi "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/runtime"

	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/poll"
)

// evalGroup prefixes the object group of an evaluation's handles, released
// when it ends. Each evaluation has a group of its own (evalSeq): a release
// left to run in the background must not free a later evaluation's
// handles.
const evalGroup = "cdpkit-eval"

var evalSeq atomic.Uint64

// evalLateCleanup bounds releasing an evaluation's handles behind an open
// dialog or a hung page, after the call has returned.
const evalLateCleanup = time.Minute

// evalNavigatedWait bounds learning where the page went when it navigated
// during an evaluation.
const evalNavigatedWait = time.Second

// Evaluate calls fn, the source of a JavaScript function such as
// "() => document.title" or "async (el) => el.innerText", with args, awaits
// the promise it returns, and serializes the value in the page within lim.
// fn may also be a plain expression ("document.title"), whose (awaited)
// value is the result; see wrapSource. A syntax error is
// ErrInvalidArgument naming the position.
// It runs in the page's main frame, or in the frame of its element
// arguments, which must all be in one frame.
//
// An exception is an [*EvalError]. A navigation before fn returns gives a
// result with Navigated set, not an error. A dialog that waits for an
// answer ends the call with a [*DialogOpenError]. The context bounds the
// call; a function that never returns ends with it.
func (t *Tab) Evaluate(ctx context.Context, fn string, args []driver.EvalArg, lim driver.EvalLimits) (*driver.EvalResult, error) {
	if strings.TrimSpace(fn) == "" {
		return nil, fmt.Errorf("%w: the function is empty", driver.ErrInvalidArgument)
	}
	s, err := t.session(ctx)
	if err != nil {
		return nil, err
	}
	if err := t.CheckDialog(); err != nil {
		return nil, err
	}
	dctx, stop := t.UntilDialog(ctx)
	defer stop()

	// Where the function runs: the first element argument's frame, or the
	// main frame's global object.
	target, this := s, runtime.RemoteObjectID("")
	callArgs := make([]*runtime.CallArgument, 0, len(args))
	var first *element
	var els []*element
	group := fmt.Sprintf("%s-%d", evalGroup, evalSeq.Add(1))
	defer func() { t.releaseEval(ctx, target, group, els) }()
	driver.Step(ctx, "running the function")
	for _, a := range args {
		if a.Ref == "" {
			callArgs = append(callArgs, &runtime.CallArgument{Value: jsonv2.Value(a.Value)})
			continue
		}
		el, err := t.element(dctx, a.Ref, "")
		if err != nil {
			return nil, dialogErr(dctx, err)
		}
		els = append(els, el)
		if first == nil {
			first, target, this = el, el.Session, el.Object
		} else if el.Session != target {
			return nil, fmt.Errorf("%w: %s and %s are in different frames", driver.ErrInvalidArgument, first.Ref, el.Ref)
		}
		callArgs = append(callArgs, &runtime.CallArgument{ObjectID: el.Object})
	}
	if this == "" {
		g, err := cdpapi.Call(dctx, s, runtime.Evaluate, runtime.EvaluateParams{Expression: "globalThis", ObjectGroup: group})
		if err != nil {
			return t.evalFailed(ctx, dctx, s, err)
		}
		if g.Result == nil || g.Result.ObjectID == "" {
			return nil, errors.New("browser: evaluating: the page has no global object")
		}
		this = g.Result.ObjectID
	}

	if err := checkSource(dctx, target, fn); err != nil {
		return nil, dialogErr(dctx, err)
	}
	yes := true
	driver.Step(ctx, "running the function")
	res, err := cdpapi.Call(dctx, target, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: wrapSource(fn),
		ObjectID:            this,
		Arguments:           callArgs,
		AwaitPromise:        &yes,
		Silent:              &yes,
		ObjectGroup:         group,
	})
	if err != nil {
		if cdp.Classify(err) == cdp.KindNotAFunction {
			return nil, &driver.EvalError{Message: "the source is not a function; write it as () => … or function () { … }"}
		}
		return t.evalFailed(ctx, dctx, s, err)
	}
	if res.ExceptionDetails != nil {
		return nil, &driver.EvalError{Message: exceptionText(res.ExceptionDetails)}
	}
	limits := map[string]int{"depth": lim.Depth, "items": lim.Items, "chars": lim.Chars}
	driver.Step(ctx, "serializing the value")
	var out struct {
		JSON      *string `json:"json"`
		Truncated bool    `json:"truncated"`
	}
	err = callJS(dctx, target, jsCall{this: this, group: group}, serializeJS, &out, valueArg(res.Result), limits)
	if errors.As(err, new(*scriptError)) {
		return nil, fmt.Errorf("browser: serializing the value: %w", err)
	}
	if err != nil {
		return t.evalFailed(ctx, dctx, s, err)
	}
	if out.JSON == nil || !json.Valid([]byte(*out.JSON)) {
		return nil, errors.New("browser: decoding the serialized value: not JSON")
	}
	return &driver.EvalResult{Value: json.RawMessage(*out.JSON), Truncated: out.Truncated}, nil
}

// releaseEval frees an evaluation's handles. While a dialog is open the
// page can answer nothing, so then it does so in the background, bounded
// by evalLateCleanup: the commands run once the dialog closes. So it does
// when the call ran out of time (late): the page may be hung, and the
// call must return within its deadline. Otherwise it runs under the
// call's own deadline, which it never extends.
func (t *Tab) releaseEval(ctx context.Context, s *cdp.Session, group string, els []*element) {
	release := func(ctx context.Context) {
		for _, el := range els {
			el.Release(ctx)
		}
		cdpapi.Call(ctx, s, runtime.ReleaseObjectGroup, runtime.ReleaseObjectGroupParams{ObjectGroup: group})
	}
	if ctx.Err() != nil || t.CheckDialog() != nil {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), evalLateCleanup)
			defer cancel()
			release(ctx)
		}()
		return
	}
	release(ctx)
}

// evalFailed turns a failed evaluation command into the dialog that ended
// it, a navigated result when the page's context went away, or a wrapped
// error.
func (t *Tab) evalFailed(ctx, dctx context.Context, s *cdp.Session, err error) (*driver.EvalResult, error) {
	if err := dialogErr(dctx, err); errors.Is(err, driver.ErrDialogOpen) {
		return nil, err
	}
	if !isContextGone(err) {
		return nil, fmt.Errorf("browser: evaluating: %w", err)
	}
	// Mid-navigation the page briefly answers "Not attached to an active
	// page"; the URL is worth a short wait.
	res := &driver.EvalResult{Navigated: true}
	poll.Until(ctx, poll.Options{Interval: 20 * time.Millisecond, Within: evalNavigatedWait}, func(ctx context.Context) bool {
		loc, err := location(ctx, s)
		if err == nil {
			res.URL = loc.URL
		}
		return err == nil
	})
	return res, nil
}

// isContextGone reports the errors of a command whose JavaScript context
// went away with its document.
func isContextGone(err error) bool {
	return cdp.Classify(err) == cdp.KindContextGone
}

// valueArg passes a function's result on to another call in its context.
func valueArg(r *runtime.RemoteObject) *runtime.CallArgument {
	switch {
	case r == nil || r.Type == runtime.RemoteObjectTypeUndefined:
		return &runtime.CallArgument{}
	case r.ObjectID != "":
		return &runtime.CallArgument{ObjectID: r.ObjectID}
	case r.UnserializableValue != "":
		return &runtime.CallArgument{UnserializableValue: r.UnserializableValue}
	}
	return &runtime.CallArgument{Value: r.Value}
}

// serializeJS turns any value into JSON within limits {depth, items,
// chars}, marking what JSON cannot show (see EvalResult), and returns
// {json, truncated}. A value's own toJSON is never called.
var serializeJS = loadScript("serialize")
