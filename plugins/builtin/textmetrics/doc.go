// Package textmetrics implements the built-in lexical metrics served by
// `mascot plugin serve self-bleu` and `mascot plugin serve distinct-n`.
//
// Self-BLEU follows the Texygen convention: every utterance of an episode is
// the hypothesis once, with all the other utterances of the same episode as
// references; sentence BLEU uses uniform weights over 1..n-grams (n = 3 by
// default), NLTK's smoothing method 1 (a zero numerator becomes epsilon =
// 0.1 over the same denominator), NLTK's brevity penalty (closest reference
// length, the shorter on ties) and NLTK's rule that a hypothesis sharing no
// unigram with the references scores 0. The episode's value is the mean
// over its utterances. Higher means more repetitive.
//
// Distinct-n is the number of distinct n-grams divided by the number of
// n-grams over all the episode's utterances (n-grams do not cross
// utterances).
//
// Choices: tokens are runs of letters, digits and apostrophes, and single
// punctuation marks (close to nltk.word_tokenize for plain English);
// lowercasing is off by default; only agent turns count unless
// include_user is set. Episodes with fewer than two utterances get a
// warning and no self_bleu value.
package textmetrics
