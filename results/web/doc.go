// Package web is the mascot web viewer: server-rendered pages over a
// results store (runs, a run's stages, conversations with directives and
// judgments, candidates and pairs, training curves, report tables with CIs,
// run comparisons, sweeps) and a blind human-evaluation rater page.
//
// Layer: web sits above results and results/report (cmd -> web -> report ->
// results) and is wired by `mascot ui`. It never imports the runner.
//
// Choices:
//   - net/http with Go 1.22 method+pattern routes, html/template, and the
//     templates and CSS embedded with embed.FS: nothing is loaded from the
//     internet and the pages carry no JavaScript. Auto-refresh of a running
//     run is a <meta http-equiv="refresh">.
//   - Charts are inline SVG drawn by this package (svg.go): polylines with
//     axes and ticks, computed on the server.
//   - Read-only except for one write: the rater page's POST, which records a
//     results.HumanPreference through Store.AddHumanPreferences. Systems are
//     hidden from the rater: the form carries episode ids only and the
//     server maps them to systems when the choice arrives.
//   - Scale: every list is paged by keyset (results.EpisodesPage) or
//     bounded by LIMIT, so pages stay fast at 100,000 episodes; the
//     report-style pages (report, compare, sweep) aggregate the whole run.
//   - Binds 127.0.0.1:8080 by default.
package web
