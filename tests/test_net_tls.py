"""An https team server or embedding endpoint whose certificate this machine does not trust (self-signed, or a
company's TLS-inspecting proxy): doctor and the embedding error say so and name the fix (SSL_CERT_FILE); with
SSL_CERT_FILE naming the CA the request goes through."""

from __future__ import annotations

import datetime
import ipaddress
import json
import ssl
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from memdir.embed import EmbedError
from memdir.embed.openai_compat import OpenAICompatProvider
from memdir.engine import teamview


@pytest.fixture
def tls_server(tmp_path, monkeypatch):
    x509 = pytest.importorskip("cryptography.x509")
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    for v in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy",
              "SSL_CERT_FILE", "SSL_CERT_DIR"):
        monkeypatch.delenv(v, raising=False)
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=2))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
            .sign(key, hashes.SHA256()))
    cert_pem, key_pem = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_pem.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_pem.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                          serialization.NoEncryption()))

    class H(BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def _answer(self, obj):
            body = json.dumps(obj).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            self._answer({"person": "ann", "projects": ["proj"]})

        def do_POST(self):
            n = len(json.loads(self.rfile.read(int(self.headers["Content-Length"])))["input"])
            self._answer({"data": [{"index": i, "embedding": [1.0, 0.0]} for i in range(n)]})

    srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert_pem, key_pem)
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield f"https://127.0.0.1:{srv.server_address[1]}", cert_pem
    srv.shutdown()
    srv.server_close()


def test_an_untrusted_certificate_is_named_with_its_fix_and_ssl_cert_file_lets_it_through(tls_server, monkeypatch,
                                                                                          tmp_path):
    base, cert = tls_server
    check = teamview.check_server(base + "/v1", "proj", "tok", timeout_s=3)
    assert check["ok"] == "fail" and "SSL_CERT_FILE" in check["remedy"] and "certificate" in check["detail"], check
    p = OpenAICompatProvider(base + "/v1/embeddings", "m", timeout_s=3, retries=0, home=tmp_path / "a")
    with pytest.raises(EmbedError) as got:
        p.embed(["x"])
    assert "SSL_CERT_FILE" in str(got.value) and "\n" not in str(got.value)

    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    assert teamview.check_server(base + "/v1", "proj", "tok", timeout_s=3)["ok"] == "ok"
    p = OpenAICompatProvider(base + "/v1/embeddings", "m", timeout_s=3, retries=0, home=tmp_path / "b")
    assert p.embed(["x"]).shape == (1, 2)
