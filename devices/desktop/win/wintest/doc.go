// Package wintest is a Win32 window for tests (Windows and Wine only): see
// wintest_windows.go.
package wintest
