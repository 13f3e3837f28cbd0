// Package figures draws mascot's plots as SVG with gonum.org/v1/plot:
// grouped bars with confidence intervals (a report's criteria per
// system), lines over an axis or over training steps, and forest plots of
// paired differences. It takes plain numbers, not reports, so the report
// package (report --plot, --format html) and the viewer (results/web)
// both build on it; it imports nothing of mascot.
//
// An SVG is drawn server-side and inlined in the page as it is: no
// script, no CDN, no web font. Text names the fonts gonum measures with
// (Liberation, which it embeds for layout) and falls back to the
// browser's sans-serif, so labels keep their place within a few percent.
// Every figure is one plot, sized for its content (a bar group per
// category, a row per forest entry), so panels never overlap, and the x
// range of a line spans every point it has.
package figures
