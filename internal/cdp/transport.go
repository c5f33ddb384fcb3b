package cdp

import "github.com/cdpkit/cdpkit/internal/rpc"

// A Transport moves whole CDP messages between cdpkit and a browser; see
// [rpc.Transport] for its contract.
type Transport = rpc.Transport
