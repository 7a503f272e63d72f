"""Plan mode: the agent may only look, then presents a plan for the user to accept.

What counts as read-only is a closed list plus MCP tools that say so (`readOnlyHint`, or a server
configured `readOnly`); anything else — a tool auger does not know, `execute` (a shell line
cannot be proven read-only: `git status > x`, `python -c ...`) — is refused in plan mode by the
permission engine (`auger.core.safety.permissions.plan_verdict`), and is not offered to the model
(`auger.core.middleware.prompt.plan_mode`). `task` stays: its subagents run under the same run
context, so their own calls meet the same refusal (an external ACP agent is refused outright:
what it does without asking cannot be seen).

`present_plan(plan)` ends the planning: it is an approval like any other (`decided_by` "plan"),
answered with an `ApprovalDecision` whose `mode` is the mode to continue in (accept), or a
rejection whose message is the user's feedback (keep planning).
"""

from __future__ import annotations

PLAN_MODE = "plan"
PLAN_TOOL = "present_plan"
# the tools that only read: files, search, todos, MCP resources, subagents judged in plan mode too
READ_ONLY_TOOLS = frozenset(
    {
        *(
            "read_file",
            "ls",
            "glob",
            "grep",
            "write_todos",
            "list_mcp_resources",
            "read_mcp_resource",
            "task",
        ),
        "get_current_thread_id",
    }
)

PLAN_PROMPT = """\

## Plan mode
You are in plan mode: the user wants a plan before anything changes. You have read-only tools
only (read_file, ls, glob, grep, todos, read-only MCP tools, subagents that only read); nothing
may be written, edited, deleted or run, and such calls are refused. Explore the code as much as
you need, then call `present_plan` once with the complete plan as markdown: the goal, the files
to change and how, the order of the steps, how you will verify the result, and open questions.
The user accepts it (you then carry it out, in the same turn) or sends feedback (revise the plan
and present it again). Do not describe the plan only in a reply: present it with the tool.
"""

ACCEPTED = (
    "The user accepted the plan. The session is now in {mode} mode: carry out the plan now, "
    "step by step, and verify the result."
)
NOT_ACCEPTED = (
    "The plan was shown to the user, and nobody accepted it in this run (there is nobody to ask), "
    "so nothing will be carried out now. End your turn: do not call any more tools."
)
OUTSIDE = (
    "You are not in plan mode (the mode is {mode}): there is no plan to present; carry on with the task."
)


def plan_only(name: str, *, mcp_read_only: bool = False) -> bool:
    """Whether plan mode lets this tool run: a read-only built-in, `present_plan`, or an MCP
    tool that declares itself read-only."""
    return name in READ_ONLY_TOOLS or name == PLAN_TOOL or mcp_read_only
