module tandem

go 1.26.8
