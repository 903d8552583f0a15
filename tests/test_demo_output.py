"""`make demo` ended by printing the last 18 lines of ROOT.md: routing rows without the table's heading or header
row, then a stray `<!-- auto:end -->` marker. It now prints the Routing table's start with its header row, and how many rows follow."""

from memdir import demo


def test_the_demo_prints_the_routing_table_with_its_header(capsys):
    assert demo.main([]) == 0
    tail = capsys.readouterr().out.split("(compiled tables", 1)[1]
    assert "## Routing" in tail and "| when | file | kind |" in tail and "|---|---|---|" in tail
    assert "<!--" not in tail
    assert tail.rstrip().splitlines()[-1].endswith("more rows")
