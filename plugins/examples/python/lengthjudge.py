#!/usr/bin/python3
"""lengthjudge.py is a mascot judge plugin in Python: the twin of the Go
example plugins/examples/lengthjudge. It scores "conciseness" on 1..5 from the
response's word count n against a target length t from its options:
5 - 2*|log2(n/t)|, at least 1 (on target 5, twice or half as long 3).

Generate the stubs, then name the script in an experiment:

    plugins/examples/python/genstubs.sh /opt/mascot-stubs
    PYTHONPATH=/opt/mascot-stubs mascot run my.cue

    judges: concise: {plugin: "lengthjudge-py", command: ["plugins/examples/python/lengthjudge.py"],
                      env: ["PYTHONPATH"], options: {target_words: 40}}

docs/plugins.md explains the protocol; mascotplugin.py (beside this file)
does the go-plugin part.
"""

import json
import math
import sys

# No __pycache__ beside the script: the plugin may live in a read-only or
# checked-out tree.
sys.dont_write_bytecode = True

try:
    from mascot.plugin.v1 import common_pb2, judge_pb2, judge_pb2_grpc
    import mascotplugin
except ImportError as e:
    sys.stderr.write("lengthjudge.py: %s; generate the stubs with plugins/examples/python/genstubs.sh DIR "
                     "and put DIR on PYTHONPATH\n" % e)
    sys.exit(1)

CRITERION = "conciseness"
DEFAULT_TARGET = 40
OPTIONS = ("target_words",)


def error(summary, path=(), item_id="", detail=""):
    """An ERROR diagnostic: about an option when path is set, about one item when item_id is."""
    return common_pb2.Diagnostic(severity=common_pb2.Diagnostic.SEVERITY_ERROR, summary=summary,
                                 detail=detail, attribute_path=list(path), item_id=item_id)


def parse_options(raw):
    """Returns (target_words, diagnostics) for the options JSON; strict like the Go SDK."""
    if not raw.strip():
        return DEFAULT_TARGET, []
    try:
        opts = json.loads(raw)
    except ValueError as e:
        return None, [error("invalid config JSON", detail=str(e))]
    if not isinstance(opts, dict):
        return None, [error("config must be a JSON object")]
    diags = [error("unknown config field", [k], detail="field %r is not an option of this plugin" % k)
             for k in sorted(opts) if k not in OPTIONS]
    target = opts.get("target_words", DEFAULT_TARGET)
    if isinstance(target, bool) or not isinstance(target, int) or target < 1:
        diags.append(error("target_words must be a positive integer", ["target_words"],
                           detail="got %s" % json.dumps(target)))
    return target, diags


class LengthJudge(judge_pb2_grpc.JudgeServicer):
    """The Judge service of mascot.plugin.v1."""

    def __init__(self):
        self.target = DEFAULT_TARGET

    def Describe(self, request, context):
        anchors = [judge_pb2.Anchor(score=1, text="four or more times off"), judge_pb2.Anchor(score=5, text="on target")]
        return judge_pb2.DescribeJudgeResponse(
            name="lengthjudge-py", version="1", rubric_version="length_v1",
            criteria=[judge_pb2.Criterion(id=CRITERION, name="Conciseness", level="agent",
                                          description="How close the response is to the target length.",
                                          anchors=anchors)],
            scale=judge_pb2.Scale(min=1, max=5),
            item_kinds=[judge_pb2.ITEM_KIND_CANDIDATE, judge_pb2.ITEM_KIND_TURN])

    def Configure(self, request, context):
        # Idempotent: the host replays the last good config after a restart.
        target, diags = parse_options(request.config_json.decode())
        if not diags:
            self.target = target
            sys.stderr.write("lengthjudge.py: target_words=%d\n" % target)
        return common_pb2.ConfigureResponse(diagnostics=diags)

    def Score(self, request, context):
        target = self.target
        return judge_pb2.ScoreResponse(results=[self.score(item, target) for item in request.items])

    @staticmethod
    def score(item, target):
        n = len(item.response.split())
        if n == 0:
            # A problem with one item is a diagnostic on it, not a failed call.
            return judge_pb2.ItemResult(item_id=item.id, diagnostics=[error("empty response", item_id=item.id)])
        raw = max(1.0, 5 - 2 * abs(math.log2(n / target)))
        return judge_pb2.ItemResult(item_id=item.id, scores=[judge_pb2.Score(
            criterion_id=CRITERION, raw=raw, rationale="%d words against a target of %d" % (n, target))])


if __name__ == "__main__":
    mascotplugin.serve(lambda server: judge_pb2_grpc.add_JudgeServicer_to_server(LengthJudge(), server))
