package driver

// FileChooser is a file picker the page opened, as a click on an
// <input type=file> does. cdpkit intercepts it, so no native dialog shows;
// the files are given with [TabDriver.SetFiles] on the input.
type FileChooser struct {
	Ref      string `json:"ref,omitempty"` // the input, when the chooser came from one
	Multiple bool   `json:"multiple,omitempty"`
}
