"""More siblings of cases C15, C18, C26 and C44: secrets in forms a coding session really holds (a token as a URL's
user, …) are redacted; the ordinary text around them is left alone."""

import pytest

from memdir.capture.redact import redact

KEY = "Xk9mQ2vR7tLp4wZs8Nb3Yc6Hd1Fj5Ga0"
HEX = "9f86d081884c7d659a2feaa0c55ad015"


@pytest.mark.parametrize("text,secret", [
    (f"git remote set-url origin https://{KEY}@github.com/org/repo.git", KEY),
    (f"git clone https://{KEY}:x-oauth-basic@github.com/org/repo", KEY),
    (f"SENTRY_DSN=https://{HEX}@o123456.ingest.sentry.io/4504", HEX),
    (f'"dsn": "https://{HEX}@o1.ingest.us.sentry.io/2"', HEX),
    (f"pip install --index-url https://{KEY.lower()}wxyz@pkgs.example.com/simple/ app", KEY.lower()),
])
def test_a_token_given_as_a_urls_user_is_redacted(text, secret):
    out = redact(text)
    assert secret not in out and "[redacted:" in out, out


@pytest.mark.parametrize("text", [
    "git clone https://git@github.com/org/repo.git", "ssh://git@gitlab.example.com:2222/group/project.git",
    "https://bob.smith@example.com/login", "see https://user@host/path and mailto:someone@example.com",
    "https://registry.npmjs.org/@scope/package-name@1.2.3",
])
def test_a_urls_ordinary_user_is_kept(text):
    assert redact(text) == text


@pytest.mark.parametrize("text", [
    "APIキー：{k}", "API キー: {k}", "アクセストークン: {k}", "シークレット = {k}", "認証トークンは {k} です",
    "API 키: {k}", "액세스 토큰: {k}", "시크릿 키는 {k} 입니다", "密匙：{k}", "凭证: {k}",
    "clave de API: {k}", "Clave secreta: `{k}`", "token de acceso = {k}", "chave de API: {k}", "clé API : {k}",
    "Clé secrète : « {k} »", "jeton d'accès: {k}", "chiave API: {k}", "API-Schlüssel: {k}", "Zugangstoken = {k}",
    "ключ API: {k}", "Токен: {k}", "секретный ключ — это {k}",
])
def test_a_key_after_a_label_in_another_language_is_redacted(text):
    out = redact(text.format(k=KEY))
    assert KEY[:12] not in out and "[redacted:" in out, out


@pytest.mark.parametrize("text", [
    "parola d'ordine: Sommer2024!Pw", "पासवर्ड: Sommer2024!Pw", "كلمة المرور: Sommer2024!Pw", "סיסמה: Sommer2024!Pw",
    "palavra-passe: Sommer2024!Pw",
])
def test_a_password_after_a_label_in_another_language_is_redacted(text):
    out = redact(text)
    assert "Sommer2024" not in out and "[redacted:" in out, out


@pytest.mark.parametrize("text", [
    "入力トークン: 1500、出力トークン: 800", "キー: user_id", "API キー: 環境変数 OPENAI_API_KEY を参照",
    "토큰: 2048", "키: 180cm", "clé API : voir le coffre-fort", "clave de API: la misma que en producción",
    "Primärschlüssel: customer_id", "ключ: id_rsa.pub", "токен: истёк", "jeton: expiré hier",
    "Schlüssel: ProductionDatabaseAccessKey", "パスワード: 忘れた",
])
def test_words_after_a_label_in_another_language_stay(text):
    assert redact(text) == text


PW = "Sommer2024!Pw"


@pytest.mark.parametrize("text,secret", [
    (f"env:\n  - name: DB_PASSWORD\n    value: {PW}\n  - name: LOG_LEVEL\n    value: debug", PW),
    (f"- name: OPENAI_API_KEY\n  value: \"{KEY}\"", KEY),
    (f'"environment": [{{"name": "STRIPE_SECRET", "value": "{KEY}"}}, {{"name": "PORT", "value": "8080"}}]', KEY),
    (f'{{"key": "api_token", "value": "{KEY}", "type": "secret", "enabled": true}}', KEY),
    (f'[{{"ParameterKey": "DbPassword", "ParameterValue": "{PW}"}}]', PW),
    (f'app_setting {{\n  name  = "CLIENT_SECRET"\n  value = "{KEY}"\n}}', KEY),
    (f'curl --form "key=DEPLOY_TOKEN" --form "value={KEY}" https://gitlab.example.com/api/v4/projects/1/variables', KEY),
])
def test_a_credential_named_in_a_name_value_pair_is_redacted(text, secret):
    out = redact(text)
    assert secret not in out and "[redacted:" in out, out


@pytest.mark.parametrize("text,secret", [
    (f"| Variable | Value |\n| --- | --- |\n| `DB_PASSWORD` | `{PW}` |\n| `PORT` | `5432` |", PW),
    (f"| Key | Value |\n|-----|-------|\n| password | {PW} |", PW),
    (f"| service | user | password |\n|---|---|---|\n| postgres | admin | {PW} |\n| redis | default | {PW}x |", PW),
    (f"| Secret Key | {KEY} |", KEY),
    (f"|OPENAI_API_KEY|{KEY}|", KEY),
    (f"| name | api token | notes |\n|:--|:--:|--:|\n| ci | **{KEY}** | rotated |", KEY),
])
def test_a_credential_in_a_markdown_table_is_redacted(text, secret):
    out = redact(text)
    assert secret not in out and "[redacted:" in out, out


@pytest.mark.parametrize("text", [
    "| Key | Value |\n|---|---|\n| timeout | 30s |\n| retries | 3 |",
    "| Field | Type | Description |\n|---|---|---|\n| password | string | The user's password |\n| token | str | The API token |",
    "| Shortcut | Key |\n|---|---|\n| Save | Ctrl+Shift+S |",
    "| Name | Password |\n|---|---|\n| alice | (see vault) |\n| bob | ${BOB_PASSWORD} |",
    "| commit | message |\n|---|---|\n| 4bb043f1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7 | fix token refresh |",
    "env:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef:\n        name: db\n        key: password",
    '{"name": "API_TOKEN", "value": "${API_TOKEN}"}', '- name: LOG_LEVEL\n  value: debug',
    '{"key": "cache_key", "value": "user-42-profile-v3-abcdefgh"}',
])
def test_ordinary_tables_and_pairs_stay(text):
    assert redact(text) == text


SHA = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


@pytest.mark.parametrize("text,secret", [
    (f"Authorization: SSWS 00{KEY}", KEY),
    (f"curl -H 'Authorization: Splunk {KEY}' https://splunk:8089/services", KEY),
    (f"Authorization: Negotiate YIIB{KEY}", KEY),
    (f"Authorization: GenieKey {KEY}", KEY),
    (f"Authorization: Klaviyo-API-Key pk_{HEX}", HEX),
    (f"Authorization: Zoho-oauthtoken 1000.{HEX}.{HEX[::-1]}", HEX),
    (f"Authorization: Bearer\n    {KEY}", KEY),
    (f'curl -H "Authorization: Bearer \\\n     {KEY}" https://api', KEY),
    (f'Authorization: Digest username="bob", realm="api", nonce="dcd98b", uri="/", response="{HEX}"', HEX),
    ("Authorization: AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20260101/us-east-1/s3/aws4_request, "
     f"SignedHeaders=host;x-amz-date, Signature={SHA}", SHA),
    ("https://b.s3.amazonaws.com/k.tar?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20260101T000000Z"
     f"&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature={SHA}", SHA),
    (f"https://storage.googleapis.com/b/o?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Signature={SHA}{SHA[::-1]}", SHA),
])
def test_other_authorization_schemes_and_request_signatures_are_redacted(text, secret):
    out = redact(text)
    assert secret not in out and "[redacted:" in out, out


@pytest.mark.parametrize("text", [
    "authorization: required for all endpoints", "Authorization: Bearer", 'Authorization: OAuth realm="photos"',
    "the authorization: pending-approval-from-security-team", "Authorization: Negotiate",
    f"sha256 checksum: {SHA}", f"integrity={SHA}",
])
def test_words_after_authorization_stay(text):
    assert redact(text) == text


@pytest.mark.parametrize("text,secret", [
    (f"echo {KEY} | vercel env add API_KEY production", KEY),
    (f"printf '%s' '{KEY}' | gh secret set API_KEY --repo org/app", KEY),
    (f"echo -n '{KEY}' | npx wrangler secret put API_KEY", KEY),
    (f"gcloud secrets versions add db-password --data-file=- <<< '{PW}'", PW),
    (f"echo {PW} | docker secret create db_password -", PW),
    (f"echo '{PW}' | pass insert -e web/github", PW),
    (f"echo -n {KEY} | doppler secrets set STRIPE_KEY", KEY),
    (f"aws ssm put-parameter --name /app/db --value {PW} --type SecureString", PW),
    (f"az keyvault secret set --vault-name kv --name db --value '{PW}'", PW),
    (f"aws secretsmanager put-secret-value --secret-id app --secret-string {KEY}", KEY),
    (f"security add-generic-password -a me -s github -w {KEY}", KEY),
])
def test_a_value_given_to_a_secret_store_is_redacted(text, secret):
    out = redact(text)
    assert secret not in out and "[redacted:" in out, out


@pytest.mark.parametrize("text", [
    "echo $TOKEN | gh secret set API_KEY", "echo hello | gh secret list", 'az keyvault secret set --name x --value "$(cat f)"',
    "gh secret set API_KEY < key.txt", "echo done | vercel env ls", "aws ssm put-parameter --value file://param.json",
])
def test_secret_store_commands_without_a_secret_stay(text):
    assert redact(text) == text


@pytest.mark.parametrize("text,secret", [
    (f"$ cat ~/.pgpass\nlocalhost:5432:*:postgres:{PW}\ndb.prod.internal:6432:orders:svc:Qw7zKp2x\n", PW),
    (f"*:*:*:app:{PW}", PW),
    ("db.internal:5432:orders:svc_orders:Qw7zKp2x", "Qw7zKp2x"),
    ("echo 'db:5432:app:app:hunter2' >> ~/.pgpass", "hunter2"),
])
def test_a_pgpass_line_has_its_password_redacted(text, secret):
    out = redact(text)
    assert secret not in out and "[redacted:" in out, out


@pytest.mark.parametrize("text", [
    "fe80:0:0:0:1", "src/app.py:12:5:E501:line", "10:20:30:40:50", "x:8080:api:v1:users",
    "host:5432:db:user:$PGPASSWORD", "time 12:30:45:00:frames",
])
def test_colon_separated_lines_that_are_no_pgpass_stay(text):
    assert redact(text) == text


def _b64(s):
    import base64

    return base64.b64encode(s.encode()).decode()


@pytest.mark.parametrize("plain", [
    f"postgres://app:{PW}@db:5432/app",
    '{"auths":{"ghcr.io":{"auth":"' + _b64("bob:" + PW) + '"}}}',
    "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----\n",
    f"DB_PASSWORD={PW}\nLOG_LEVEL=info\n",
    f"ghp_{KEY}abcd",
])
def test_base64_of_a_secret_is_redacted(plain):
    enc = _b64(plain)
    for text in (f"apiVersion: v1\nkind: Secret\ndata:\n  config: {enc}\n", f'{{"data": {{"x": "{enc}"}}}}',
                 f"echo {enc} | base64 -d"):
        out = redact(text)
        assert enc[:40] not in out and "[redacted:" in out, (text, out)


@pytest.mark.parametrize("plain", [
    "db.internal.example.com", "admin", '{"alg":"RS256","typ":"JWT","kid":"abc"}', "Hello, world! This is plain text.",
    "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIE\n-----END CERTIFICATE-----\n",
])
def test_base64_of_ordinary_text_stays(plain):
    text = f"  host: {_b64(plain)}"
    assert redact(text) == text


def test_a_base64_private_key_cut_short_is_redacted():
    enc = _b64("-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB")
    text = f"  tls.key: {enc[:61]}"
    assert enc[:40] not in redact(text)
