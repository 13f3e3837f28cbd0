package cli

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"mascot.dev/mascot/internal/testgate"
)

// TestChatPageBrowser types a message into the chat page in headless
// Chromium, waits for the streamed reply and follows the link to the stored
// conversation in the viewer.
func TestChatPageBrowser(t *testing.T) {
	bin := testgate.Chromium(t)
	db, runID := chatFixture(t, "")
	srv := chatViewer(t, db, 2)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox)
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelA()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, 90*time.Second)
	defer cancelT()
	msg := "I moved to a new city and know nobody."
	css := func(sel string) chromedp.CSS { return chromedp.CSS(sel) }
	must(t, chromedp.Do(ctx,
		chromedp.Navigate(srv.URL+"/chat?run="+runID),
		chromedp.WaitVisible(css("#message")),
		chromedp.SendKeys(css("#message"), msg),
		chromedp.Click(css("#send")),
		chromedp.WaitVisible(css("#chat-done"))))
	chatText, err := chromedp.Run(ctx, chromedp.Text(css("#chat")))
	must(t, err)
	must(t, chromedp.Do(ctx, chromedp.Click(css("#episode-link")), chromedp.WaitVisible(css("#turns"))))
	epText, err := chromedp.Run(ctx, chromedp.Text(css("#turns")))
	must(t, err)
	if !strings.Contains(chatText, msg) || strings.Count(chatText, "Agent:") != 2 {
		t.Errorf("chat page after the reply: %q; want the message and two directed turns", chatText)
	}
	if !strings.Contains(epText, msg) || !strings.Contains(epText, "The ") {
		t.Errorf("the stored conversation in the viewer: %q", epText)
	}
}
