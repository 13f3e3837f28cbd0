package train

import (
	"io"

	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
	"mascot.dev/mascot/trainer/compute/device"
	"mascot.dev/mascot/trainer/train"
)

// devicePreflight is every training kind's Kind.Preflight: the device the
// stage asks for must be usable here (for cuda: a -tags cuda build, the
// CUDA libraries and a visible GPU).
func devicePreflight(_ *runner.Env, st schema.Stage) []runner.Problem {
	var o Optim
	if err := st.Decode(&o); err != nil {
		return []runner.Problem{runner.StageProblem(st, "", err)}
	}
	if err := device.Check(o.Device); err != nil {
		return []runner.Problem{runner.StageProblem(st, "device", err)}
	}
	return nil
}

// useDevice opens the backend the stage trains on into opts.Backend and
// returns what releases it. On the default cpu device it leaves Backend
// nil, so trainer/train opens its CPU backend with opts.Threads.
func (o Optim) useDevice(opts *train.Options) (release func(), err error) {
	if o.Device == "" || o.Device == "cpu" {
		return func() {}, nil
	}
	be, err := device.Open(o.Device)
	if err != nil {
		return nil, err
	}
	opts.Backend = be
	return func() {
		if c, ok := be.(io.Closer); ok {
			_ = c.Close()
		}
	}, nil
}
