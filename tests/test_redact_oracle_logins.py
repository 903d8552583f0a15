"""Oracle's ``user/password@db`` logins: given to SQL*Plus and the other Oracle tools (Data Pump's expdp / impdp, exp /
imp, SQL*Loader, RMAN's target and catalog, dgmgrl), as ``userid=``, to a SQL*Plus ``conn`` command, in a JDBC URL or to
a Python driver's ``connect()``: the password is redacted, the user and the database stay. A path, a reflog entry, a
scoped package, a workflow's ``owner/action@v4`` and prose about the tools are left alone."""

import pytest

from memdir.capture.redact import redact


@pytest.mark.parametrize("text,secret", [
    ("sqlplus scott/Tig3rPass@orcl", "Tig3rPass"),
    ("sqlplus system/Tig3rPass@//localhost:1521/XE", "Tig3rPass"),
    ("sqlplus -s scott/Tig3rPass@orcl @report.sql", "Tig3rPass"),
    ("sqlplus -L -s system/Tig3rPass@XEPDB1", "Tig3rPass"),
    ('sqlplus -s "sys/Tig3rPass@orcl as sysdba"', "Tig3rPass"),
    ("sqlplus 'sys/Tig3rPass@orcl as sysdba'", "Tig3rPass"),
    ('sqlplus sys/"Tig3r@Pass"@orcl', "Tig3r@Pass"),
    ("sqlplus scott/tiger", "tiger"),
    ("docker exec -it oracle sqlplus system/Tig3rPass@XEPDB1", "Tig3rPass"),
    ("jdbc:oracle:thin:scott/Tig3rPass@db.example.com:1521/ORCL", "Tig3rPass"),
    ("url=jdbc:oracle:thin:scott/Tig3rPass@//db.example.com:1521/svc", "Tig3rPass"),
    ("jdbc:oracle:oci:scott/Tig3rPass@orcl", "Tig3rPass"),
    ("expdp system/Tig3rPass@orcl directory=DATA_PUMP_DIR dumpfile=hr.dmp", "Tig3rPass"),
    ("impdp system/Tig3rPass@orcl schemas=hr", "Tig3rPass"),
    ("exp scott/Tig3rPass@orcl file=scott.dmp", "Tig3rPass"),
    ("imp scott/Tig3rPass@orcl file=scott.dmp full=y", "Tig3rPass"),
    ("sqlldr scott/Tig3rPass@orcl control=load.ctl", "Tig3rPass"),
    ("sqlldr userid=scott/Tig3rPass@orcl control=load.ctl", "Tig3rPass"),
    ("sqlldr control=load.ctl userid=scott/Tig3rPass", "Tig3rPass"),
    ("rman target sys/Tig3rPass@prod", "Tig3rPass"),
    ("rman target / catalog rco/Cat4log9@rcat", "Cat4log9"),
    ("dgmgrl sys/Tig3rPass@primary", "Tig3rPass"),
    ("SQL> conn scott/Tig3rPass@orcl", "Tig3rPass"),
    ("SQL> CONNECT system/Tig3rPass@XEPDB1", "Tig3rPass"),
    ("connect sys/Tig3rPass as sysdba", "Tig3rPass"),
    ('echo "conn scott/Tig3rPass@orcl" | sqlplus /nolog', "Tig3rPass"),
    ('conn = cx_Oracle.connect("scott/Tig3rPass@localhost/orcl")', "Tig3rPass"),
    ("pool = oracledb.connect(dsn='scott/Tig3rPass@host:1521/svc')", "Tig3rPass"),
    ('conn = oracledb.connect("scott", "Tig3rPass", "localhost/orcl")', "Tig3rPass"),
])
def test_an_oracle_login_password_is_redacted(text, secret):
    out = redact(text)
    assert secret not in out and "[redacted:password]" in out, out


def test_the_user_and_the_database_stay():
    assert redact("sqlplus scott/Tig3rPass@orcl") == "sqlplus scott/[redacted:password]@orcl"
    assert (redact("rman target sys/Tig3rPass@prod catalog rco/Cat4log9@rcat")
            == "rman target sys/[redacted:password]@prod catalog rco/[redacted:password]@rcat")
    assert (redact("jdbc:oracle:thin:scott/Tig3rPass@db.example.com:1521/ORCL")
            == "jdbc:oracle:thin:scott/[redacted:password]@db.example.com:1521/ORCL")


@pytest.mark.parametrize("text", [
    "git log origin/main@{1}",
    "git reset --hard origin/main@{u}",
    "npm i @scope/pkg@1.2.3",
    "uses: actions/checkout@v4",
    "see a/b@c and user/repo@v2",
    "pip install git+https://github.com/user/repo@v2",
    "sqlplus / as sysdba",
    "sqlplus /nolog @scripts/run.sql",
    "sqlplus -s /nolog",
    "sqlplus scott@orcl",
    "sqlplus $DB_USER/$DB_PASS@$DB",
    "sqlplus ${USER}/${PASS}@orcl",
    "sqlplus username/password@db",
    "sqlplus %DB_USER%/%DB_PASS%@orcl",
    "sqlplus and/or sqlcl both work",
    "jdbc:oracle:thin:@db.example.com:1521/ORCL",
    "jdbc:oracle:thin:@//db.example.com:1521/svc",
    "rman target /",
    "Connect client/server apps over TLS",
    "we connect frontend/backend@v2 later",
    "the catalog actions/checkout@v4 lists",
    "export PATH=a/b@c",
    "sqlldr control=load.ctl data=input/data.csv",
    "https://example.com/page?userid=42/edit",
    "expdp parfile=exp/full.par",
    # exp / imp / connect are words too: a review found these redacted
    "connect client/server",
    "see imp docs/images",
    "the exp logs/old files",
])
def test_lookalikes_stay(text):
    assert redact(text) == text
