// Package labels holds the one definition of the labels MASCOT derives from
// dataset fields: the valence group of an emotion and the domain of a QMSum
// meeting.
//
// Layer: a leaf. It imports only the standard library, so that both
// runner/datasets (which labels samples as it loads them) and results
// (which labels imported episodes) use the same rules without results
// importing the runner.
//
// Choices (not stated by the datasets or the paper):
//
//   - Valence: the Empathetic Dialogues groups listed in docs/datasets.md
//     (16 negative, 11 positive, 5 neutral); ESConv emotion types are all
//     distress states, so negative, except "neutral".
//   - QMSum domain: from the meeting id when there is one (ES/IS/TS and a
//     digit: product, AMI; B and a lower-case letter: academic, ICSI;
//     covid_/education_: committee); otherwise from speaker names, see
//     [DomainFromSpeakers].
package labels
