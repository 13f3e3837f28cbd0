package wire

import (
	"context"
	"encoding/json"

	"mascot.dev/mascot/plugins/spec"

	pluginv1 "mascot.dev/mascot/plugins/proto/mascot/plugin/v1"
)

// JudgeImpl is the Go shape of the Judge service, on both sides of the wire.
type JudgeImpl interface {
	Describe(ctx context.Context) (spec.JudgeInfo, error)
	Configure(ctx context.Context, config json.RawMessage) ([]spec.Diagnostic, error)
	Score(ctx context.Context, items []spec.Item) (spec.ScoreResult, error)
}

// judgeServer adapts a JudgeImpl to the generated service.
type judgeServer struct {
	pluginv1.UnimplementedJudgeServer
	impl JudgeImpl
}

func (s *judgeServer) Describe(ctx context.Context, _ *pluginv1.DescribeRequest) (*pluginv1.DescribeJudgeResponse, error) {
	info, err := s.impl.Describe(ctx)
	if err != nil {
		return nil, err
	}
	return JudgeInfoToProto(info), nil
}

func (s *judgeServer) Configure(ctx context.Context, req *pluginv1.ConfigureRequest) (*pluginv1.ConfigureResponse, error) {
	ds, err := s.impl.Configure(ctx, json.RawMessage(req.GetConfigJson()))
	if err != nil {
		return nil, err
	}
	return &pluginv1.ConfigureResponse{Diagnostics: diagsToProto(ds)}, nil
}

func (s *judgeServer) Score(ctx context.Context, req *pluginv1.ScoreRequest) (*pluginv1.ScoreResponse, error) {
	items := make([]spec.Item, 0, len(req.GetItems()))
	for _, p := range req.GetItems() {
		items = append(items, itemFromProto(p))
	}
	res, err := s.impl.Score(ctx, items)
	if err != nil {
		return nil, err
	}
	return scoreResultToProto(res), nil
}

// JudgeClient is the host-side JudgeImpl over a gRPC connection. Its errors
// are raw gRPC status errors; plugins/host makes them readable.
type JudgeClient struct{ c pluginv1.JudgeClient }

// Describe calls the plugin's Describe.
func (c *JudgeClient) Describe(ctx context.Context) (spec.JudgeInfo, error) {
	r, err := c.c.Describe(ctx, &pluginv1.DescribeRequest{})
	if err != nil {
		return spec.JudgeInfo{}, err
	}
	return judgeInfoFromProto(r), nil
}

// Configure calls the plugin's Configure.
func (c *JudgeClient) Configure(ctx context.Context, config json.RawMessage) ([]spec.Diagnostic, error) {
	r, err := c.c.Configure(ctx, &pluginv1.ConfigureRequest{ConfigJson: config})
	if err != nil {
		return nil, err
	}
	return diagsFromProto(r.GetDiagnostics()), nil
}

// Score calls the plugin's Score with one batch (already split by the host).
func (c *JudgeClient) Score(ctx context.Context, items []spec.Item) (spec.ScoreResult, error) {
	req := &pluginv1.ScoreRequest{Items: make([]*pluginv1.Item, 0, len(items))}
	for _, it := range items {
		req.Items = append(req.Items, ItemToProto(it))
	}
	r, err := c.c.Score(ctx, req)
	if err != nil {
		return spec.ScoreResult{}, err
	}
	return scoreResultFromProto(r), nil
}

// JudgeInfoToProto converts a description.
func JudgeInfoToProto(info spec.JudgeInfo) *pluginv1.DescribeJudgeResponse {
	p := &pluginv1.DescribeJudgeResponse{Name: info.Name, Version: info.Version, RubricVersion: info.RubricVersion,
		Scale: &pluginv1.Scale{Min: info.Scale.Min, Max: info.Scale.Max}, Diagnostics: diagsToProto(info.Diagnostics)}
	for _, c := range info.Criteria {
		pc := &pluginv1.Criterion{Id: c.ID, Name: c.Name, Description: c.Description, Level: c.Level}
		for _, a := range c.Anchors {
			pc.Anchors = append(pc.Anchors, &pluginv1.Anchor{Score: int32(a.Score), Text: a.Text})
		}
		p.Criteria = append(p.Criteria, pc)
	}
	for _, k := range info.ItemKinds {
		p.ItemKinds = append(p.ItemKinds, kindToProto[k])
	}
	return p
}

func judgeInfoFromProto(p *pluginv1.DescribeJudgeResponse) spec.JudgeInfo {
	info := spec.JudgeInfo{Name: p.GetName(), Version: p.GetVersion(), RubricVersion: p.GetRubricVersion(),
		Scale: spec.Scale{Min: p.GetScale().GetMin(), Max: p.GetScale().GetMax()}, Diagnostics: diagsFromProto(p.GetDiagnostics())}
	for _, c := range p.GetCriteria() {
		sc := spec.Criterion{ID: c.GetId(), Name: c.GetName(), Description: c.GetDescription(), Level: c.GetLevel()}
		for _, a := range c.GetAnchors() {
			sc.Anchors = append(sc.Anchors, spec.Anchor{Score: int(a.GetScore()), Text: a.GetText()})
		}
		info.Criteria = append(info.Criteria, sc)
	}
	for _, k := range p.GetItemKinds() {
		info.ItemKinds = append(info.ItemKinds, kindFromProto(k))
	}
	return info
}

func scoreResultToProto(r spec.ScoreResult) *pluginv1.ScoreResponse {
	p := &pluginv1.ScoreResponse{Diagnostics: diagsToProto(r.Diagnostics)}
	for _, ir := range r.Results {
		pr := &pluginv1.ItemResult{ItemId: ir.ItemID, Diagnostics: diagsToProto(ir.Diagnostics)}
		for _, s := range ir.Scores {
			pr.Scores = append(pr.Scores, &pluginv1.Score{CriterionId: s.CriterionID, Judge: s.Judge, Raw: s.Raw, Rationale: s.Rationale})
		}
		for _, o := range ir.RawOutputs {
			pr.RawOutputs = append(pr.RawOutputs, &pluginv1.RawOutput{Judge: o.Judge, Text: o.Text})
		}
		for _, pf := range ir.Preferences {
			pr.Preferences = append(pr.Preferences, &pluginv1.Preference{CriterionId: pf.CriterionID, Judge: pf.Judge,
				WinnerId: pf.WinnerID, Ranking: pf.Ranking, Rationale: pf.Rationale})
		}
		p.Results = append(p.Results, pr)
	}
	for _, s := range r.Statistics {
		p.Statistics = append(p.Statistics, &pluginv1.Statistic{Name: s.Name, CriterionId: s.CriterionID, Value: s.Value, N: int32(s.N)})
	}
	return p
}

func scoreResultFromProto(p *pluginv1.ScoreResponse) spec.ScoreResult {
	r := spec.ScoreResult{Diagnostics: diagsFromProto(p.GetDiagnostics())}
	for _, pr := range p.GetResults() {
		ir := spec.ItemResult{ItemID: pr.GetItemId(), Diagnostics: diagsFromProto(pr.GetDiagnostics())}
		for _, s := range pr.GetScores() {
			ir.Scores = append(ir.Scores, spec.Score{CriterionID: s.GetCriterionId(), Judge: s.GetJudge(), Raw: s.GetRaw(), Rationale: s.GetRationale()})
		}
		for _, o := range pr.GetRawOutputs() {
			ir.RawOutputs = append(ir.RawOutputs, spec.RawOutput{Judge: o.GetJudge(), Text: o.GetText()})
		}
		for _, pf := range pr.GetPreferences() {
			ir.Preferences = append(ir.Preferences, spec.Preference{CriterionID: pf.GetCriterionId(), Judge: pf.GetJudge(),
				WinnerID: pf.GetWinnerId(), Ranking: pf.GetRanking(), Rationale: pf.GetRationale()})
		}
		r.Results = append(r.Results, ir)
	}
	for _, s := range p.GetStatistics() {
		r.Statistics = append(r.Statistics, spec.Statistic{Name: s.GetName(), CriterionID: s.GetCriterionId(), Value: s.GetValue(), N: int(s.GetN())})
	}
	return r
}
