"""Siblings of case C15's ``password=hunter2`` and C44's ``key=`` in the forms code and config files write them: a
subscript assignment (``os.environ['OPENAI_API_KEY'] = '…'``), a typed declaration (``const PASSWORD: &str = "…"``),
Makefile's ``?=`` / ``+=``, a credential named by one string literal and given in the next (PHP's ``define``, Go's
``os.Setenv``, an argument list's ``["--api-key", "…"]``), .NET's ``<add key=… value=…/>``, Android's ``<string
name="api_key">``, a namespaced ``<db:password>``, and YAML's value on the next line or behind a tag: redacted; code that
only names a credential is left alone."""

import pytest

from memdir.capture.redact import redact

T = "Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LzXcVbNm"


@pytest.mark.parametrize("text,secret", [
    (f"os.environ['OPENAI_API_KEY'] = '{T}'", T),
    (f'process.env["API_TOKEN"] = "{T}"', T),
    (f"settings[:api_key] = '{T}'", T),
    ('const PASSWORD: &str = "hunter2xyz";', "hunter2xyz"),
    (f'const apiKey: string = "{T}";', T),
    ('val password: String = "hunter2xyz"', "hunter2xyz"),
    ("DB_PASSWORD ?= hunter2xyz", "hunter2xyz"),
    ("export DB_PASSWORD+=hunter2xyz", "hunter2xyz"),
    ("define('DB_PASSWORD', 'hunter2xyz');", "hunter2xyz"),
    ("define( 'AUTH_KEY', 'Zq8!vvTT99#kLm2' );", "Zq8!vvTT99#kLm2"),
    (f'os.Setenv("API_KEY", "{T}")', T),
    ('System.setProperty("db.password", "hunter2xyz");', "hunter2xyz"),
    (f'["--api-key", "{T}"]', T),
    (f"args: ['--token', '{T}']", T),
    (f'<add key="ApiKey" value="{T}" />', T),
    ('<property name="password" value="hunter2xyz"/>', "hunter2xyz"),
    (f'<string name="api_key">{T}</string>', T),
    (f'<entry key="password">{T}</entry>', T),
    (f"<db:password>{T}</db:password>", T),
    (f"auth_token: >-\n  {T}", T),
    (f"api_key: |\n  {T}", T),
    (f'"apiKey":\n    "{T}"', T),
    (f"password:\n  {T}", T),
    ("password: !!str hunter2xyz", "hunter2xyz"),
])
def test_a_credential_in_code_or_config_is_redacted(text, secret):
    out = redact(text)
    assert secret not in out and "[redacted:" in out, out


@pytest.mark.parametrize("text", [
    "reset_password:\n  enabled: true", "password:\n  secretKeyRef:\n    name: db", "token:\n  - a\n  - b",
    "password:\n  minLength: 8", "api_key:\n  description: the key", "secret:\n  name: my-secret", "token: !Ref MyToken",
    "password:\n  $DB_PASSWORD", "credentials:\n  file: ~/.aws/credentials", "auth_token: |\n  ${TOKEN}",
    "os.environ['OPENAI_API_KEY'] = api_key", "os.environ['OPENAI_API_KEY'] = os.getenv('X')", "config['password'] == ''",
    "if data['token']:\n    pass", "settings[:api_key] = ENV['API_KEY']", "password: str = Field(..., min_length=8)",
    "api_key: Optional[str] = None", "token: string = ''", "const PASSWORD_MIN: usize = 8;",
    "password: String = String::new()", "DB_PASSWORD ?= $(shell cat pw)", "CFLAGS += -O2",
    "define('DB_PASSWORD', getenv('DB_PASSWORD'));", "define('AUTH_KEY', 'put your unique phrase here');",
    'os.Setenv("API_KEY", key)', 'choices=[("token", "Token"), ("password", "Password")]',
    'fields = ("username", "password", "email")', '["--api-key", args.key]', "['--token', '$TOKEN']",
    '<add key="ApiKey" value="" />', '<add key="ApiKeyHeader" value="X-Api-Key" />',
    '<string name="password">Password</string>', '<string name="password_hint">Enter your password</string>',
    '<entry key="password">${db.password}</entry>', '<property name="password" value="${DB_PASSWORD}"/>',
    '<string name="api_key">@string/other</string>', '<xs:element name="password" type="xs:string"/>',
    '<label for="password">Password</label>', '<input type="password" name="password" placeholder="Password">',
    "t('password', 'Mot de passe')", "i18n.set('password', 'Passwort')", "headers.get('X-Api-Key', '')",
    "getattr(settings, 'SECRET_KEY', None)", "kwargs.pop('token', None)", "request.POST.get('password', '')",
    "os.environ.get('API_KEY', 'dummy')", "os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'app.settings')",
    "parser.add_argument('--api-key', 'the API key')", 'parser.add_argument("--token", "-t")',
    "mapping = {'token': 'access_token', 'secret': 'client_secret'}", "rename('password', 'password_hash')",
    "assert resp.json()['token'] == token", "replace('password', '********')",
    '<add key="ClientSecret" value="#{ClientSecret}#" />',
    # TypeScript's non-null "!" after a variable read: a reference, not a value (a review found these redacted)
    "const apiKey: string = process.env.API_KEY!;", "const token = process.env.GITHUB_TOKEN!;",
    "const token = this.config.token!;",
])
def test_code_that_only_names_a_credential_is_left_alone(text):
    assert redact(text) == text
