module tandem

go 1.26.8

require github.com/sashabaranov/go-openai v1.43.0
