//go:build !dev

package main

// devSetup does nothing outside the development build (see main_dev.go):
// the packaged app serves no HTTP.
func devSetup() (devHooks, error) { return devHooks{stop: func() {}}, nil }
