// Package chat talks to the trained system of a finished run: the
// conversation behind `mascot chat` and the viewer's chat page.
//
// It adds no engine. A run is reopened with runner.OpenSession (its
// endpoints started, built-in engines loading the run's models, the stages'
// outputs restored from the store), one of its episodes stages prepares its
// trained system (adapters loaded, roster, prompts, sampling) and each
// round of the conversation is one dialogue.RunEpisode of one round whose
// context is the conversation so far.
//
// # Choices
//
//   - The stage: --stage when given; else the run's episodes stage of the
//     wanted system (mascot by default), evaluation stages first; else its
//     first directed evaluation stage with the system replaced. A baseline
//     asked of a MASCOT stage talks through the endpoints' base models.
//   - A message from the person is followed by Options.Rounds agent turns
//     (1 by default); each is emitted as soon as it is generated.
//   - Requests are cached like any run's, under a unit key that hashes the
//     conversation so far, so an identical history replays exactly and an
//     edited one (after /undo) is generated afresh.
//   - Storage: after every exchange the conversation is saved as the one
//     episode of a unit of stage "chat" (results.SaveChat) linked to the
//     run, mode "chat", dataset "chat"; the person's turns have turn_type
//     "user" and the extra field human=true. It can then be judged,
//     exported and viewed like any episode.
package chat
