package all

import (
	"bytes"
	"fmt"
	"reflect"
	"runtime"
	"strings"

	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
)

// Reference renders docs/stages.md: every kind of r with its summary
// (runner.Kind), what it reads, its device and concurrency needs (with the
// runner's concurrency constants) and its CUE definition (the kind's
// schema.KindSpec), so the page cannot drift from the code.
func Reference(r *runner.Registry) []byte {
	var b bytes.Buffer
	b.WriteString("# Stage kinds\n\n")
	b.WriteString("<!-- Generated from the stage registry by runner/stages/all.Reference. DO NOT EDIT.\n")
	b.WriteString("     Regenerate: UPDATE=1 go test ./runner/stages/all -run TestStageKindsReferenceIsCurrent -->\n\n")
	b.WriteString("Each kind lives in one folder: its CUE definition, its registration (one\n")
	b.WriteString("`runner.Register` call naming the kind), its Go config, stage and tests.\n")
	fmt.Fprintf(&b, "A stage that sets no `concurrency` keeps %d units in flight per slot of the\n", runner.UnitsPerEndpointSlot)
	fmt.Fprintf(&b, "largest `concurrency` among the endpoints its kind names below, or %d when none\n", runner.DefaultConcurrency)
	b.WriteString("sets one; the endpoint's client still bounds its requests in flight.\n\n")
	b.WriteString("| kind | summary | reads | device |\n|---|---|---|---|\n")
	names := r.Names()
	for _, n := range names {
		k, _ := r.Lookup(n)
		spec := k.KindSpec
		fmt.Fprintf(&b, "| [%s](#%s) | %s | %s | %s |\n", n, n, k.Summary, orDash(stageReads(spec)), yesNo(spec.Device))
	}
	for _, n := range names {
		k, _ := r.Lookup(n)
		spec := k.KindSpec
		fmt.Fprintf(&b, "\n## %s\n\n%s.\n\n", n, k.Summary)
		fmt.Fprintf(&b, "- definition: `%s` (version %s), folder `%s`\n", spec.Definition, k.Version, folder(k))
		for _, ref := range spec.Refs {
			fmt.Fprintf(&b, "- `%s` names %s\n", ref.Field, refTarget(ref))
		}
		fmt.Fprintf(&b, "- device: %s\n", device(spec))
		if len(spec.Endpoints) > 0 {
			fmt.Fprintf(&b, "- concurrency: %d× the largest limit of the endpoints in %s when the stage sets none\n",
				runner.UnitsPerEndpointSlot, quoteAll(spec.Endpoints))
		}
		if spec.Model {
			b.WriteString("- output: a base model, what `base_stage` and a builtin endpoint's `model_stage` may name\n")
		}
		if spec.RewardModel {
			b.WriteString("- output: a reward model, what a reward of kind `reward-model` may name\n")
		}
		for _, a := range spec.Adapters {
			fmt.Fprintf(&b, "- loads the adapter of the stage `%s` names on the endpoint in `%s` (default `%s`), trained on the base model that endpoint serves\n",
				a.Field, a.Endpoint, a.DefaultEndpoint)
		}
		if spec.Evaluates != nil {
			b.WriteString("- reads its datasets as evaluation data in some configurations (kept apart from training data)\n")
		}
		if spec.Source != "" {
			src := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(spec.Source), "package schema"))
			fmt.Fprintf(&b, "\n```cue\n%s\n```\n", src)
		}
	}
	return b.Bytes()
}

// stageReads lists the stage kinds a kind reads, in field order.
func stageReads(spec schema.KindSpec) string {
	var out []string
	for _, ref := range spec.Refs {
		for _, k := range ref.Reads {
			if !strings.Contains(" "+strings.Join(out, " ")+" ", " "+k+" ") {
				out = append(out, k)
			}
		}
	}
	return strings.Join(out, ", ")
}

func refTarget(ref schema.Ref) string {
	what := "one of the experiment's " + ref.Target
	if ref.List {
		what = "a list of the experiment's " + ref.Target
	}
	if len(ref.Reads) > 0 {
		what += " of kind " + strings.Join(ref.Reads, ", ")
	}
	return what
}

func device(spec schema.KindSpec) string {
	if spec.Device {
		return "yes (trains; holds a device slot)"
	}
	return "no"
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func quoteAll(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = "`" + x + "`"
	}
	return strings.Join(q, ", ")
}

// folder is the source folder of a kind's constructor, relative to the
// module ("runner/stages/train").
func folder(k runner.Kind) string {
	if k.New == nil {
		return "?"
	}
	fn := runtime.FuncForPC(reflect.ValueOf(k.New).Pointer())
	if fn == nil {
		return "?"
	}
	name := fn.Name() // mascot.dev/mascot/runner/stages/train.newDPO
	slash := strings.LastIndex(name, "/")
	if dot := strings.Index(name[slash+1:], "."); dot >= 0 {
		name = name[:slash+1+dot]
	}
	return strings.TrimPrefix(name, "mascot.dev/mascot/")
}
