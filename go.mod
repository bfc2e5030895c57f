module tandem

go 1.26.8

require github.com/electricbubble/gadb v0.1.1-0.20250314021536-2e108649b088

require (
	golang.org/x/image v0.47.0
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/text v0.43.0 // indirect
)
