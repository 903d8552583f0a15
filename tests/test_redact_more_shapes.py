"""More siblings of C15/C18/C26/C44: documented credential shapes still let through, each in the forms a coding session
holds them (prose, JSON, YAML, a shell line, a diff line, a Markdown table, Chinese prose), and ordinary text of the
same look that must stay."""

import pytest

from memdir.capture.redact import redact

# Google OAuth 2.0 refresh token (gcloud / google-auth ``authorized_user`` JSON, OAuth playground): "1//0" + base64url
GOOGLE_REFRESH = "1//0gZx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LzXcVbNm-Qw8Er7Ty6Ui5Op4_As3Df2Gh1Jk0LzXcVbNm9Qw8Er7Ty6Ui5Op4As"


def _forms(secret: str, label: str) -> list[str]:
    return [
        f"use {secret} for the call",
        f"the value is {secret}.",
        f'{{"{label}": "{secret}"}}',
        f"auth:\n  {label}: {secret}\n",
        f"export {label.upper()}={secret}",
        f"curl -d {label}={secret} https://oauth2.googleapis.com/token",
        f"+  {label}: \"{secret}\"",
        f"-{label.upper()}={secret}",
        f"| {label} | `{secret}` |",
        f"| {label} | {secret} |",
        f"令牌：{secret}",
        f"刷新令牌是 {secret} 请保管",
        f"({secret})",
        secret,
    ]


@pytest.mark.parametrize("text", _forms(GOOGLE_REFRESH, "refresh_token"))
def test_google_oauth_refresh_token_is_redacted(text):
    out = redact(text)
    assert GOOGLE_REFRESH[4:] not in out and "[redacted:" in out, out
    assert "Zx9Qw8Er7Ty6" not in out, out


@pytest.mark.parametrize("text", [
    "see http://1//0 for nothing",
    "ratio 1//0 is undefined",
    "path a/1//0abc/def",
    "1//0aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    "comment: x = 1//0gzzz  # floor division in Python",
])
def test_google_refresh_lookalikes_stay(text):
    assert redact(text) == text


# Azure AD (Entra ID) application client secret: 3 characters, a digit, "Q~", then 31-34 of [A-Za-z0-9_~.-]
AZURE_SECRET = "Zx98Q~Ty6Ui5Op4As3Df2Gh1Jk0Lz.XcVbNm_Qw8"


@pytest.mark.parametrize("text", _forms(AZURE_SECRET, "client_secret") + [
    f"az ad sp create-for-rbac returned password {AZURE_SECRET} for the app",
    f'ClientSecretCredential(tenant_id, client_id, "{AZURE_SECRET}")',
    f"客户端密码是{AZURE_SECRET}，别提交",
])
def test_azure_ad_client_secret_is_redacted(text):
    out = redact(text)
    assert "Ty6Ui5Op4As3Df2Gh1Jk0Lz" not in out and "[redacted:" in out, out


@pytest.mark.parametrize("text", [
    "the ratio Q~R holds for x8Q~y",
    "~/proj/abc1Q~notes/readme_and_more_words_here.md",
    "press Q~ to quit",
    "regex 1234Q~aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    "abc1Q~the.quick.brown.fox.jumps.over.dogs",
])
def test_azure_secret_lookalikes_stay(text):
    assert redact(text) == text


# HashiCorp Vault service token before Vault 1.10: "s." and 24 base62 characters (a namespaced one adds ".<5>"); a
# labelled one leaked too (VAULT_TOKEN=s.… read as a dotted code expression)
VAULT_LEGACY = "s.Zx9Qw8Er7Ty6Ui5Op4As3Df2"


@pytest.mark.parametrize("text", _forms(VAULT_LEGACY, "vault_token") + [
    f"vault login {VAULT_LEGACY}",
    f"VAULT_TOKEN={VAULT_LEGACY}.AbC1d vault kv get secret/app",
    f'client = hvac.Client(url=url, token="{VAULT_LEGACY}")',
    f"Vault 的令牌是{VAULT_LEGACY}",
])
def test_vault_legacy_service_token_is_redacted(text):
    out = redact(text)
    assert "Zx9Qw8Er7Ty6Ui5Op4As3Df2" not in out and "[redacted:" in out, out


@pytest.mark.parametrize("text", [
    "return s.ReplaceAllStringFunc(src)",
    "s.getElementsByTagNameNS(ns, tag)",
    "x = s.AbstractBeanFactoryProxy1",
    "this.s.Zx9Qw8Er7Ty6Ui5Op4As3Df2 is a field chain",
    "the users.Zx9Qw8Er7Ty6Ui5Op4As3Df2 column",
    "s.Zx9Qw8Er7Ty6Ui5Op4As3Df2(x)",
    "s.abcdefghijklmnopqrstuvwx",
    "It's.  S.H.I.E.L.D. agents",
])
def test_vault_legacy_lookalikes_stay(text):
    assert redact(text) == text


# Laravel's APP_KEY (and any key so written) carries its encoding before the value: "base64:" + 32 random bytes
LARAVEL_KEY = "base64:q/Ox3zJZXKO+gGW8gnycUA=="


@pytest.mark.parametrize("text", [
    f"APP_KEY={LARAVEL_KEY}",
    f'APP_KEY="{LARAVEL_KEY}"',
    f"+APP_KEY={LARAVEL_KEY}",
    f"-APP_KEY={LARAVEL_KEY}",
    f"--app-key={LARAVEL_KEY}",
    f'{{"app_key": "{LARAVEL_KEY}"}}',
    f"app:\n  key: {LARAVEL_KEY}\n",
    f"| APP_KEY | `{LARAVEL_KEY}` |",
    f"docker run -e APP_KEY={LARAVEL_KEY} app",
    f"密钥：{LARAVEL_KEY}",
    f"| APP_KEY | {LARAVEL_KEY[7:]} |",
    f"| name | value |\n|---|---|\n| ENCRYPTION_KEY | `{LARAVEL_KEY[7:]}` |",
])
def test_key_with_base64_prefix_is_redacted(text):
    out = redact(text)
    assert "Ox3zJZXKO+gGW8gnyc" not in out and "[redacted:" in out, out


@pytest.mark.parametrize("text", [
    "APP_KEY=base64:",
    "php artisan key:generate prints base64:... into APP_KEY",
    "cache key: base64:dGhpcyBpcyBqdXN0IHNvbWUgdGV4dCBoZXJl",
    "encoding: base64:aGVsbG8gd29ybGQgdGhpcyBpcyB0ZXh0",
    "| NOTE_KEY | anVzdCBzb21lIHRleHQgaGVyZSwgb2s/Pz4= |",
    "| TOKEN_FILE | src/components/HeaderBar.tsx |",
    "| API_KEY | /usr/local/share/keys/appKey |",
    "| SECRET_KEY | see/the/vault/entry/Prod |",
])
def test_base64_prefix_lookalikes_stay(text):
    assert redact(text) == text


# a URL carrying its own credential in a query parameter other than key= / sig= / hex X-Amz-Signature=: an Azure
# Functions key (?code=), an OAuth authorization code, a CloudFront / GCS V2 signed URL's base64 Signature=
FN_KEY = "Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LzXcVbNm-Qw8Er7Ty6Ui5Op4A%3D%3D"
CF_SIG = "Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LzXcVbNm~Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LzXc__"


@pytest.mark.parametrize("text", [
    f"curl 'https://myfn.azurewebsites.net/api/HttpTrigger?code={FN_KEY}'",
    f"https://myfn.azurewebsites.net/api/HttpTrigger?code={FN_KEY}&name=bob",
    f'{{"url": "https://myfn.azurewebsites.net/api/x?name=a&code={FN_KEY}"}}',
    f"| webhook | https://myfn.azurewebsites.net/api/x?code={FN_KEY} |",
    f"回调地址是 https://app.example.com/callback?code={FN_KEY}&state=xyz",
    f"+  url: https://myfn.azurewebsites.net/api/x?code={FN_KEY}",
    f"https://d111.cloudfront.net/v.mp4?Expires=1700000000&Signature={CF_SIG}&Key-Pair-Id=K2JCJMDEHXQW5F",
    f"https://storage.googleapis.com/b/o?GoogleAccessId=svc&Expires=1&Signature={FN_KEY}",
    f"wget 'https://cdn.example.com/f.zip?signature={CF_SIG}'",
])
def test_url_query_credential_is_redacted(text):
    out = redact(text)
    assert "Zx9Qw8Er7Ty6Ui5Op4As3" not in out and "[redacted:" in out, out


@pytest.mark.parametrize("text", [
    "https://example.com/status?code=200",
    "https://example.com/lookup?code=US-EN-locale-default-setting",
    "https://example.com/docs?code=python_hello_world_example",
    "https://example.com/cb?code=abc123",
    "https://api.example.com/v1?signature=v1&expires=1700000000",
    "https://example.com/verify?signature=required_for_every_request",
    "https://leetcode.com/problems/two-sum/?code=twoSumSolutionInPython",
])
def test_url_query_lookalikes_stay(text):
    assert redact(text) == text


# a Markdown table whose name cell or column is a CJK credential label
@pytest.mark.parametrize("text", [
    "| 密码 | Zx9Qw8Er7Ty6Ui5Op4 |",
    "| 数据库密码 | `Zx9Qw8Er7Ty6Ui5Op4` |",
    "| 项 | 值 |\n|---|---|\n| 访问令牌 | Zx9Qw8Er7Ty6Ui5Op4As3Df2 |",
    "| 用户 | 密碼 |\n|---|---|\n| admin | Zx9Qw8Er7Ty6Ui5Op4 |",
    "| API 密钥 | Zx9Qw8Er7Ty6Ui5Op4As3Df2 |",
    "| パスワード | Zx9Qw8Er7Ty6Ui5Op4 |",
])
def test_cjk_label_in_markdown_table_is_redacted(text):
    out = redact(text)
    assert "Zx9Qw8Er7Ty6Ui5Op4" not in out and "[redacted:" in out, out


@pytest.mark.parametrize("text", [
    "| 密码 | 至少8位，含数字 |",
    "| Password | 至少8位，含数字 |",
    "| 密码强度 | Strong2024 |",
    "| 密码 | ****** |",
    "| 令牌 | 见保险库 |",
    "| 字段 | 说明 |\n|---|---|\n| 密码 | 用户的登录密码 |",
    "| 密钥类型 | RSA2048 |",
])
def test_cjk_table_lookalikes_stay(text):
    assert redact(text) == text


# PowerShell: a plain-text password made a SecureString (New-PSDrive, PSCredential, Connect-* scripts)
@pytest.mark.parametrize("text", [
    "$pw = ConvertTo-SecureString 'Zx9Qw8Er7Ty6Ui5Op4' -AsPlainText -Force",
    '$pw = ConvertTo-SecureString -String "Zx9Qw8Er7Ty6Ui5Op4" -AsPlainText -Force',
    "$pw = convertto-securestring -AsPlainText -Force -String 'Zx9Qw8Er7Ty6Ui5Op4'",
    '$cred = New-Object PSCredential("bob", (ConvertTo-SecureString "Zx9Qw8Er7Ty6Ui5Op4" -AsPlainText -Force))',
    "'Zx9Qw8Er7Ty6Ui5Op4' | ConvertTo-SecureString -AsPlainText -Force",
    "+    $sec = ConvertTo-SecureString 'Zx9Qw8Er7Ty6Ui5Op4' -AsPlainText -Force",
    "| 步骤 | `ConvertTo-SecureString 'Zx9Qw8Er7Ty6Ui5Op4' -AsPlainText -Force` |",
    '{"script": "ConvertTo-SecureString \'Zx9Qw8Er7Ty6Ui5Op4\' -AsPlainText -Force"}',
    "密码用 ConvertTo-SecureString 'hunter2' -AsPlainText -Force 转成安全字符串",
])
def test_powershell_plaintext_securestring_is_redacted(text):
    out = redact(text)
    assert "Zx9Qw8Er7Ty6Ui5Op4" not in out and "hunter2" not in out and "[redacted:" in out, out


@pytest.mark.parametrize("text", [
    "$pw = ConvertTo-SecureString $env:DB_PASSWORD -AsPlainText -Force",
    "$pw = ConvertTo-SecureString -String $plain -AsPlainText -Force",
    "$pw = Read-Host -AsSecureString | ConvertTo-SecureString",
    "$sec = ConvertTo-SecureString $encrypted -Key $key",
    "Use ConvertTo-SecureString with -AsPlainText only in tests.",
    "$pw = ConvertTo-SecureString (Get-Content pw.txt) -AsPlainText -Force",
])
def test_securestring_lookalikes_stay(text):
    assert redact(text) == text


# Markdown around a credential's name or value: bold labels (**Password:** x, **API key**: x) and inline code values
@pytest.mark.parametrize("text,secret", [
    ("password = `s3cr3tP4ss`", "s3cr3tP4ss"),
    ("password: `s3cr3tP4ss`", "s3cr3tP4ss"),
    ("**Password:** s3cr3tP4ss", "s3cr3tP4ss"),
    ("**Password**: s3cr3tP4ss", "s3cr3tP4ss"),
    ("- **Password**: `s3cr3tP4ss`", "s3cr3tP4ss"),
    ("- **API key**: `Zx9Qw8Er7Ty6Ui5Op4As3Df2`", "Zx9Qw8Er7Ty6Ui5Op4As3Df2"),
    ("* **Token:** Zx9Qw8Er7Ty6Ui5Op4As3Df2", "Zx9Qw8Er7Ty6Ui5Op4As3Df2"),
    ("| **Password** | s3cr3tP4ss |", "s3cr3tP4ss"),
    ("Login with user `admin` and password `s3cr3tP4ss`.", "s3cr3tP4ss"),
    ("+**DB password:** s3cr3tP4ss", "s3cr3tP4ss"),
])
def test_markdown_emphasis_or_code_around_a_credential_is_redacted(text, secret):
    out = redact(text)
    assert secret not in out and "[redacted:" in out, out


@pytest.mark.parametrize("text", [
    "**Password:** see the vault",
    "**Password**: `$DB_PASSWORD`",
    "password: `None`",
    "password = `getpass()`",
    "- **Password**: required",
    "token: `string`",
    "**API key**: `<your key here>`",
    "password = `${process.env.DB_PASSWORD}`",
    "the `password` field is hashed with `bcrypt`",
])
def test_markdown_credential_lookalikes_stay(text):
    assert redact(text) == text


# --passphrase X (gpg, duplicity, restic-style tools): the passphrase option, like --password
@pytest.mark.parametrize("text", [
    'gpg --batch --pinentry-mode loopback --passphrase "s3cr3tP4ss" -d f.gpg',
    "gpg --batch --passphrase s3cr3tP4ss --symmetric backup.tar",
    "duplicity --passphrase=s3cr3tP4ss /data file:///backup",
    "+  - run: gpg --passphrase 's3cr3tP4ss' --decrypt secrets.gpg",
    "用 gpg --passphrase s3cr3tP4ss -d 解密",
])
def test_passphrase_option_is_redacted(text):
    out = redact(text)
    assert "s3cr3tP4ss" not in out and "[redacted:" in out, out


@pytest.mark.parametrize("text", [
    "gpg --passphrase-file pw.txt -d f.gpg",
    "gpg --passphrase-fd 0 -d f.gpg",
    'gpg --passphrase "$GPG_PASSPHRASE" -d f.gpg',
    "use the --passphrase option to pass it",
])
def test_passphrase_option_lookalikes_stay(text):
    assert redact(text) == text


# an English credential name with a Chinese / Japanese / Korean copula (token 是 X, API Key 为 X, password は X)
@pytest.mark.parametrize("text,secret", [
    ("token 是 Zx9Qw8Er7Ty6Ui5Op4As3Df2", "Zx9Qw8Er7Ty6Ui5Op4As3Df2"),
    ("API Key 是 Zx9Qw8Er7Ty6Ui5Op4As3Df2", "Zx9Qw8Er7Ty6Ui5Op4As3Df2"),
    ("我的 GitHub token 是 Zx9Qw8Er7Ty6Ui5Op4As3Df2，别外传", "Zx9Qw8Er7Ty6Ui5Op4As3Df2"),
    ("root 的 password 为 s3cr3tP4ss", "s3cr3tP4ss"),
    ("secret key 是：Zx9Qw8Er7Ty6Ui5Op4As3Df2", "Zx9Qw8Er7Ty6Ui5Op4As3Df2"),
    ("access token は Zx9Qw8Er7Ty6Ui5Op4As3Df2 です", "Zx9Qw8Er7Ty6Ui5Op4As3Df2"),
])
def test_english_label_with_cjk_copula_is_redacted(text, secret):
    out = redact(text)
    assert secret not in out and "[redacted:" in out, out


@pytest.mark.parametrize("text", [
    "token 是按字数计费的",
    "token 是 LLM 的输入单位",
    "password 是必填字段",
    "API key 是在控制台生成的",
    "token 是 4096",
    "password 为 None 时报错",
])
def test_english_label_with_cjk_copula_lookalikes_stay(text):
    assert redact(text) == text


# What `npm token create`, `heroku auth:token`-style CLIs and `mysql` print: a table drawn with box characters or
# `+---+` borders, a credential's name in one cell and its value (a UUID for npm's and Heroku's tokens) in the next,
# or a column headed by it; and an ODBC connection string quoting a password in braces.
UUID = "a73c9572-f1b9-4983-983d-ba3ac3cc913d"


@pytest.mark.parametrize("text, secret", [
    ("┌────────────────┬──────────────────────────────────────┐\n"
     f"│ token          │ {UUID} │\n"
     "├────────────────┼──────────────────────────────────────┤\n"
     "│ cidr_whitelist │                                      │\n"
     "└────────────────┴──────────────────────────────────────┘", UUID),
    (f"| token | {UUID} |", UUID),
    (f"| HEROKU_API_KEY | {UUID} |", UUID),
    ("│ DB_PASSWORD │ Sommer2024!Pw │", "Sommer2024!Pw"),
    ("║ password ║ Sommer2024!Pw ║", "Sommer2024!Pw"),
    ("┌──────┬──────────┬───────────────┐\n│ id   │ user     │ password      │\n├──────┼──────────┼───────────────┤\n"
     "│ 1    │ app      │ Sommer2024!Pw │\n└──────┴──────────┴───────────────┘", "Sommer2024!Pw"),
    ("+----+------+---------------+\n| id | user | password      |\n+----+------+---------------+\n"
     "|  1 | app  | Sommer2024!Pw |\n+----+------+---------------+", "Sommer2024!Pw"),
    ("Driver={ODBC Driver 18 for SQL Server};Server=tcp:db,1433;Uid=sa;Pwd={Odbc;Pw9};", "Odbc;Pw9"),
    ('{"ConnectionStrings": {"Default": "Server=db;Uid=sa;PWD={Sommer2024!Pw};"}}', "Sommer2024!Pw"),
    ("DRIVER={SQL Server};SERVER=db;UID=sa;Password={a}}b;c9};", "a}}b;c9"),
])
def test_a_credential_in_a_drawn_table_or_braces_is_redacted(text, secret):
    out = redact(text)
    assert secret not in out and "[redacted:" in out, out


@pytest.mark.parametrize("text", [
    f"│ id     │ {UUID} │",
    f"| Token ID | {UUID} |",
    f"│ request_id │ {UUID} │",
    "│ password │ required │",
    "┌──────┬──────────┐\n│ name │ token    │\n├──────┼──────────┤\n│ ci   │ (hidden) │\n└──────┴──────────┘",
    '<Input password={pw} />',
    'f"SERVER=db;UID=sa;PWD={db_pass};"',
    'string.Format("Server=db;Uid=sa;Pwd={0};", pw)',
    '$"Server=db;Uid=sa;Pwd={config.DbPassword};"',
    'f"SERVER=db;UID=sa;PWD={os.environ[PW]};"',
    'conn = pyodbc.connect("DRIVER={ODBC Driver 18};SERVER=db;UID=sa;PWD={" + pw + "}")',
])
def test_drawn_table_and_brace_lookalikes_stay(text):
    assert redact(text) == text
