// Package web is the mascot web viewer: server-rendered pages over a
// results store (runs, a run's stages, conversations with directives and
// judgments, candidates and pairs, training curves, report tables with CIs,
// run comparisons, sweeps), blind human-evaluation rater pages (within a
// run, and across runs) and a chat page with a run's trained system.
//
// Layer: web sits above results and results/report (cmd -> web -> report ->
// results) and is wired by `mascot ui`. It never imports the runner: the
// chat page reaches a run's system through the ChatOpener the CLI gives it
// (runner/chat).
//
// Choices:
//   - net/http with Go 1.22 method+pattern routes, html/template, and the
//     templates and CSS embedded with embed.FS: nothing is loaded from the
//     internet and the pages carry no JavaScript. Auto-refresh of a running
//     run is a <meta http-equiv="refresh">.
//   - Plots are SVG drawn on the server with gonum/plot (results/figures,
//     through report.Figures, ComparisonFigures, SweepFigures and
//     TrainingFigures) and inlined in the page: the report's criteria as
//     bars with CIs, a comparison's forest plot, a sweep's Overall against
//     each axis, one training curve per logged value.
//   - Read-only except for three writes: the raters' POSTs, which record
//     results.HumanPreference rows (a cross-run one per criterion rated,
//     with the run of each episode), and the chat page's POST, which runs
//     the models and stores the conversation. Systems and runs are hidden
//     from the rater: the form carries episode ids only and the server maps
//     them back when the choice arrives.
//   - Writes are guarded (guard.go): a Host naming the bound address on
//     every request (DNS rebinding), same origin and a per-process
//     same-site token on every POST (cross-site forms), bounded bodies and
//     fields.
//   - The chat reply streams without JavaScript: the template ranges over a
//     channel of turns and the response is flushed after every write.
//   - Scale: every list is paged by keyset (results.EpisodesPage) or
//     bounded by LIMIT, so pages stay fast at 100,000 episodes; the
//     report-style pages (report, compare, sweep) aggregate the whole run.
//   - Binds 127.0.0.1:8080 by default.
package web
