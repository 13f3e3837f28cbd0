// Package datasets turns the datasets MASCOT runs on into [Sample] values.
//
// Layer: runner/datasets sits under the runner. It imports only the
// standard library and internal/labels (the valence and meeting-domain
// rules, shared with results); stages (candidates, episodes, train-sft) call [Load]
// with the dataset block of an experiment and never see a dataset format.
//
// Formats read:
//
//   - qmsum: the QMSum JSONL (one meeting per line) and the per-meeting JSON
//     directory (test/*.json, the file name is the meeting id). One Sample
//     per query, general and specific.
//   - esconv: ESConv.json (speakers seeker/supporter), FailedESConv.json
//     (speaker/listener) and the Hugging Face split files of thu-coai/esconv
//     (train.txt, valid.txt, test.txt: one JSON record per line with
//     speakers usr/sys, either bare or wrapped as {"text": "<record>"}).
//     One Sample per dialogue.
//   - empathetic_dialogues: the Empathetic Dialogues CSV. One Sample per
//     conversation.
//   - jsonl: one Sample per line, in Sample's own JSON form or as
//     {conv_id, context: [{speaker, text}], ...}.
//
// Choices (not stated by the datasets or the paper):
//
//   - Speakers are normalised: emotional-support datasets use "seeker" (the
//     person with the problem: ESConv seeker/speaker/usr, the first
//     Empathetic Dialogues speaker) and "supporter" (supporter/listener/sys,
//     the Empathetic Dialogues listener). QMSum keeps the transcript's names.
//   - QMSum context: a specific query's context is the turns of its
//     relevant_text_span (end index inclusive; several spans concatenated,
//     StartIdx the first span's start); a general query ("summarize the
//     meeting") has no span, so its context is the opening
//     Spec.ContextTurns turns (default [DefaultContextTurns]), StartIdx 0.
//   - QMSum domain: from the meeting id when there is one, otherwise from
//     speaker names, by the rules of [labels.DomainFromMeetingID] and
//     [labels.DomainFromSpeakers].
//   - Sampling: with Limit > 0 every sample is ranked by a hash of (seed,
//     sample id) and the first Limit are kept, in dataset order. The same
//     seed gives the same subset on any machine and Go version, and a larger
//     limit keeps the smaller limit's samples.
//   - Valence: [labels.ValenceOf] (the Empathetic Dialogues groups listed
//     in docs/datasets.md; ESConv emotions are all negative except "neutral").
//
// Where data is looked for: Spec.Path; else, with an HF id, the local
// Hugging Face hub cache (HF_HUB_CACHE, HF_HOME/hub, XDG_CACHE_HOME, then
// ~/.cache/huggingface/hub); else $MASCOT_DATASETS/<name>. Nothing is
// downloaded. A miss is a [*NotFoundError] listing every place looked.
package datasets
