package fakevllm

// ReplyFunc decides the content of a chat completion: a test's stand-in
// for a model whose answers it knows (a judge that scores in a known way,
// say). ok false leaves the reply to the server's own generation. It is
// called for every choice of every request that draws no fault, from the
// server's goroutines, so it must be safe for concurrent use.
type ReplyFunc func(req Request) (content string, ok bool)

// Request is what a ReplyFunc sees of a chat completion request.
type Request struct {
	Model    string
	Messages []Message
	Choice   int    // index of the choice (n > 1)
	Seed     *int64 // the request's seed, if any
}

// Message is one chat message (its text parts joined).
type Message struct {
	Role, Content string
}

// reply returns the ReplyFunc's content for choice i of req, if any.
func (s *Server) reply(req chatRequest, i int) (string, bool) {
	if s.opts.Reply == nil {
		return "", false
	}
	r := Request{Model: req.Model, Choice: i, Seed: req.Seed}
	if r.Model == "" {
		r.Model = s.opts.Model
	}
	for _, m := range req.Messages {
		r.Messages = append(r.Messages, Message{Role: m.Role, Content: m.text()})
	}
	return s.opts.Reply(r)
}
