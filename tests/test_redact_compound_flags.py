"""A command's option whose name ends in a credential's word after a qualifier (``--admin-password X``,
``--client-secret X``, ``--bot-token X``, ``--secret-access-key X``, ``--auth-key=X``, Go's single-dash
``-db-password X``): the value is redacted, as ``--password`` / ``--token`` already were. Options that name a file, a
count or a path (``--token-file``, ``--max-tokens 512``, ``--ssh-key ~/.ssh/id``, ``--sort-key name``) and prose about
the options stay as written."""

import pytest

from memdir.capture.redact import redact

S = "Xk9mQ2vLp7RtY4wZ8nB3"


@pytest.mark.parametrize("text,secret", [
    (f"az vm create --admin-password {S} --admin-username azureuser", S),
    ("aws rds create-db-instance --master-user-password hunter2xyz --engine postgres", "hunter2xyz"),
    ("helm install db bitnami/postgresql --root-password='Tr0ub4dor&3'", "Tr0ub4dor&3"),
    (f"docker run app --db-pass {S}", S),
    (f"gcloud x --client-secret {S}", S),
    (f"./cli --client_secret={S}", S),
    (f"bot run --bot-token {S}", S),
    (f"renovate --github-token {S}", S),
    (f"aws configure --secret-access-key {S}", S),
    (f"s3cmd --access-key AKIDEXAMPLE --secret-key {S}", S),
    (f"tailscale up --authkey {S}", S),
    (f"tailscale up --auth-key={S}", S),
    (f"az storage blob upload --account-key {S} -f a", S),
    (f"az storage blob list --sas-token \"{S}\"", S),
    (f"stripe listen --webhook-secret {S}", S),
    (f"slack-app --signing-secret {S}", S),
    (f"./server -db-password {S} -port 8080", S),
    (f"terraform apply -var-file x --encryption-key {S}", S),
    (f"gem push pkg.gem --api-token {S}", S),
])
def test_a_compound_credential_option_is_redacted(text, secret):
    out = redact(text)
    assert secret not in out, out
    assert "[redacted:" in out


@pytest.mark.parametrize("text", [
    "vault agent --token-file /run/secrets/token --exit-after-auth",
    "llm run --max-tokens 512 --temperature 0.2",
    "ssh-add --ssh-key ~/.ssh/id_ed25519",
    "aws dynamodb query --sort-key name --partition-key id",
    "openssl req --private-key ./server.key -out req.csr",
    "run --api-key $API_KEY and --client-secret \"$CLIENT_SECRET\"",
    "pass --admin-password to set it, or --client-secret for the app",
    "the --bot-token flag is required",
    "cli --cache-key build-cache-v2 --auth-token-file ~/.token",
    "use --github-token <TOKEN> here",
])
def test_options_that_name_no_value_stay(text):
    assert redact(text) == text
