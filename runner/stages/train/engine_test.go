package train_test

import (
	"context"
	"net/http"
	"testing"

	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/runner/stages/train"
	"mascot.dev/mascot/schema"
)

// answers reports whether a server answers at base URL u.
// answers reports whether the server of h answers its own client (with
// the handle's token) on /v1/models.
func answers(h runner.EngineServer) bool {
	req, err := http.NewRequest(http.MethodGet, h.URL()+"/models", nil)
	if err != nil {
		return false
	}
	req.Header.Set("Authorization", "Bearer "+h.Token())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// Two runs (sweep variants) that start one endpoint over the same model
// stage share its server, and the first to finish does not stop it for
// the other: the server stops with its last handle.
func TestEngineSharesServersUntilTheLastHandle(t *testing.T) {
	eng := train.NewEngine()
	defer eng.Close()
	ctx := context.Background()
	ep := schema.Endpoint{Kind: "builtin", Model: "tiny", ModelStage: "pretrain", Concurrency: 2}
	a, err := eng.Start(ctx, "director", ep, "stage fp1")
	if err != nil {
		t.Fatal(err)
	}
	b, err := eng.Start(ctx, "director", ep, "stage fp1")
	if err != nil {
		t.Fatalf("a second run starting the same endpoint: %v", err)
	}
	if a.URL() != b.URL() {
		t.Fatalf("same endpoint and model stage got two servers: %s and %s", a.URL(), b.URL())
	}
	other, err := eng.Start(ctx, "director", ep, "stage fp2")
	if err != nil {
		t.Fatal(err)
	}
	if other.URL() == a.URL() {
		t.Fatal("a different model stage fingerprint shares the server")
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil { // a run closing twice releases once
		t.Fatal(err)
	}
	if !answers(b) {
		t.Fatal("closing one run's handle stopped the server the other run uses")
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if answers(b) {
		t.Fatal("the server still answers after its last handle was closed")
	}
	if !answers(other) {
		t.Fatal("closing one server stopped another")
	}
	other.Close()
}
