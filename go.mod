module tandem

go 1.26.8

require github.com/electricbubble/gadb v0.1.1-0.20250314021536-2e108649b088
