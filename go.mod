module tandem

go 1.26.8

require (
	github.com/sashabaranov/go-openai v1.43.0
	github.com/tiktoken-go/tokenizer v0.10.0
	golang.org/x/image v0.47.0
)

require github.com/dlclark/regexp2/v2 v2.5.1 // indirect
