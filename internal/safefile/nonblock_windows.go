package safefile

// Nonblock is 0: Windows has no FIFOs in the file system (named pipes
// live under \\.\pipe\), so an open of a file cannot wait for a writer.
const Nonblock = 0
