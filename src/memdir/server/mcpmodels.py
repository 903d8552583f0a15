"""The MCP tools' result models (pydantic), shared by the SDK server (:mod:`memdir.server.mcp`, which derives each
tool's output schema from them) and the early answers of ``memdir mcp`` (:mod:`memdir.server.mcpearly`, which
serialises a result through the same class without the SDK). Importing this module does not import pydantic."""

from typing import Any


def result_models(BaseModel, Field) -> Any:  # noqa: N803
    """The tools' result models (pydantic classes, built from ``BaseModel`` and ``Field`` so that importing this module
    does not import pydantic), as a namespace: ``NearTurn``, ``RecallHit``, ``RecallResult``, ``NoteOut``, ``ReadResult``,
    ``RememberResult``, ``ForgetResult``, ``ListResult``, ``NoteBrief``, ``InspectResult``, ``PruneResult``. The SDK
    derives each tool's output schema from them (:func:`memdir.server.mcp._build`); the early answers of ``memdir mcp``
    (:mod:`memdir.server.mcpearly`) serialise a result through the same class, without the SDK."""
    from types import SimpleNamespace
    from typing import Optional

    class NearTurn(BaseModel):
        handle: Optional[str] = Field(None, description="its short handle; memory_read reads it whole")
        role: str = Field(description="user, assistant or tool")
        text: str = Field(description="its part holding most of the query's words (at most 400 characters)")

    class RecallHit(BaseModel):
        id: str = Field(description="note id (category/slug) or event key")
        handle: Optional[str] = Field(None, description="short handle; memory_read reads the whole text by it")
        kind: str = Field(description="note kind (rule, preference, decision, pitfall, fact) or event role")
        scope: str = Field(description="project or global")
        score: float = Field(description="final score: BM25 x scope prior x decay x rehearsal boost")
        summary: Optional[str] = None
        text: str
        truncated: bool = Field(False, description="text was cut to keep the reply small")
        ts: Optional[str] = Field(None, description="event time, ISO 8601 UTC")
        pinned: bool = False
        category: Optional[str] = None
        reasons: dict[str, Any] = Field(default_factory=dict, description="matched terms, fields and each factor")
        before: Optional[NearTurn] = Field(None, description="an event's previous turn in its session (a failing "
                                                             "output before the reply that names it)")
        after: Optional[NearTurn] = Field(None, description="an event's next turn in its session (the change after "
                                                            "an error)")

    class RecallResult(BaseModel):
        query: str
        count: int
        hits: list[RecallHit]
        omitted: int = Field(0, description="hits left out to keep the reply within a host's size cap (ask again with a "
                                             "narrower query, or a smaller k)")

    class NoteOut(BaseModel):
        id: str
        category: str
        kind: str
        scope: str
        summary: str
        text: str
        tags: list[str] = []
        load_when: list[str] = []
        pinned: bool = False
        supersedes: Optional[str] = None
        superseded_by: Optional[str] = None
        created: Optional[str] = None
        updated: Optional[str] = None
        path: Optional[str] = None

    class ReadResult(BaseModel):
        id: str = Field(description="note id (category/slug) or event key")
        kind: str
        scope: str
        summary: Optional[str] = None
        offset: int = Field(description="where this page starts in the whole text (characters)")
        total_chars: int = Field(description="length of the whole text (characters)")
        next_offset: Optional[int] = Field(None, description="pass as offset for the next page; null after the last")
        text: str

    class RememberResult(BaseModel):
        existed: bool = Field(description="true when the same text was already stored; nothing was written")
        note: Optional[NoteOut] = Field(None, description="the note; null when a rules note became a proposal")
        proposal: Optional[dict[str, Any]] = Field(None, description="a rules note waits for a person: {id, status, ...}")
        message: Optional[str] = None

    class ForgetResult(BaseModel):
        id: Optional[str] = None
        forgotten: bool = Field(description="false when nothing had that id, or for a preview")
        message: str
        count: Optional[int] = Field(None, description="query/prefix: memories matching")
        confirm_token: Optional[str] = Field(None, description="query/prefix preview: pass back to delete them")
        samples: list[dict[str, Any]] = []

    class ListResult(BaseModel):
        count: int
        entries: list[RecallHit]
        omitted: int = Field(0, description="hits left out to keep the reply within a host's size cap (ask again with a "
                                             "category or kind, or a smaller limit)")

    class NoteBrief(BaseModel):
        id: str
        scope: str
        kind: str
        summary: str
        pinned: bool = False
        superseded_by: Optional[str] = None

    class InspectResult(BaseModel):
        ok: bool = Field(description="true when no problem was found")
        counts: dict[str, Any] = Field(description="per scope: notes, events, events by role, superseded, tombstones, categories, path")
        problems: list[dict[str, str]] = Field(description="each {kind, path, detail, ...}")
        notes: list[NoteBrief]
        notes_total: int
        notes_listed: int
        proposals: list[dict[str, str]] = Field(default_factory=list,
                                                description="pending rule proposals a person has to accept or reject")
        problems_total: int = Field(0, description="problems found (the list may show fewer)")
        proposals_total: int = Field(0, description="pending proposals (the list may show fewer)")

    class PruneResult(BaseModel):
        available: bool = Field(description="false when this memdir version has no prune")
        acted: bool = Field(description="true only when memories were deleted")
        days: float
        count: Optional[int] = Field(None, description="cold memories matching (preview)")
        deleted: Optional[int] = None
        bytes: Optional[int] = None
        confirm_token: Optional[str] = Field(None, description="pass back with the same days to delete; changes every hour")
        samples: list[dict[str, Any]] = []
        message: str
        detail: dict[str, Any] = {}

    return SimpleNamespace(NearTurn=NearTurn, RecallHit=RecallHit, RecallResult=RecallResult, NoteOut=NoteOut,
                           ReadResult=ReadResult, RememberResult=RememberResult, ForgetResult=ForgetResult,
                           ListResult=ListResult, NoteBrief=NoteBrief, InspectResult=InspectResult,
                           PruneResult=PruneResult)
