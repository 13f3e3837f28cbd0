package llm

import (
	"fmt"
	"strconv"
	"strings"
)

// TallyStatPrefix starts the names under which a plugin process that
// calls endpoints through its own Client reports a Tally back to the host
// (as batch statistics: name TallyStatPrefix+"<role>/<field>", value).
const TallyStatPrefix = "llm-tally/"

// EncodeTally flattens per-role counts into named values
// ("<role>/attempts", "<role>/retry/429", "<role>/latency/<bucket>", ...);
// DecodeTally reverses it.
func EncodeTally(roles map[string]RoleTally) map[string]int64 {
	out := map[string]int64{}
	put := func(role, field string, v int64) {
		if v != 0 {
			out[role+"/"+field] = v
		}
	}
	for role, r := range roles {
		put(role, "requests", r.Requests)
		put(role, "attempts", r.Attempts)
		put(role, "tokens_in", r.TokensIn)
		put(role, "tokens_out", r.TokensOut)
		put(role, "cache_hits", r.CacheHits)
		put(role, "reused", r.Reused)
		for c, v := range r.Retries {
			put(role, "retry/"+c, v)
		}
		for c, v := range r.Failures {
			put(role, "failure/"+c, v)
		}
		for b, v := range r.Latency {
			put(role, "latency/"+strconv.Itoa(b), v)
		}
	}
	return out
}

// DecodeTally rebuilds per-role counts from EncodeTally's values.
func DecodeTally(values map[string]int64) (map[string]RoleTally, error) {
	t := NewTally()
	for name, v := range values {
		i := strings.IndexByte(name, '/')
		if i <= 0 {
			return nil, fmt.Errorf("decoding llm tally: bad name %q", name)
		}
		role, field := name[:i], name[i+1:]
		var err error
		t.add(role, func(r *RoleTally) {
			kind, arg, _ := strings.Cut(field, "/")
			switch kind {
			case "requests":
				r.Requests += v
			case "attempts":
				r.Attempts += v
			case "tokens_in":
				r.TokensIn += v
			case "tokens_out":
				r.TokensOut += v
			case "cache_hits":
				r.CacheHits += v
			case "reused":
				r.Reused += v
			case "retry":
				r.Retries[arg] += v
			case "failure":
				r.Failures[arg] += v
			case "latency":
				b, perr := strconv.Atoi(arg)
				if perr != nil {
					err = fmt.Errorf("decoding llm tally: bad latency bucket in %q", name)
					return
				}
				r.Latency[b] += v
			default:
				err = fmt.Errorf("decoding llm tally: unknown field in %q", name)
			}
		})
		if err != nil {
			return nil, err
		}
	}
	return t.Roles(), nil
}
