"""Secrets given to a CLI as positional arguments: poetry's http-basic password, MinIO's mc alias secret key, a
credential in rclone's config create / update. The commands alone, prose about them and shell variables stay."""

from __future__ import annotations

import pytest

from memdir.capture.redact import redact


@pytest.mark.parametrize("text,value", [
    ("poetry config http-basic.pypi myuser Tig3rPass99x", "Tig3rPass99x"),
    ("poetry config --local http-basic.private alice 'my long pass phrase'", "my long pass phrase"),
    ("mc alias set myminio http://localhost:9000 minioadmin Sup3rS3cretKey99", "Sup3rS3cretKey99"),
    ("mc config host add s3 https://s3.example.com minio wJalrXUtnFEMIK7MDENGbPxRfiCY", "wJalrXUtnFEMIK7MDENGbPxRfiCY"),
    ("rclone config create mybox webdav url https://dav.example.com user bob pass Tig3rPass99", "Tig3rPass99"),
    ("rclone config create s3 s3 provider Minio secret_access_key Qp7Lm2Zx9Wk4Rt8vB3nM", "Qp7Lm2Zx9Wk4Rt8vB3nM"),
])
def test_a_positional_secret_is_redacted(text, value):
    out = redact(text)
    assert value not in out and "[redacted:" in out


@pytest.mark.parametrize("text", [
    "use poetry config http-basic.pypi to set the credentials",
    "mc alias set myminio",
    "rclone config create remote drive",
    "mc alias set local http://localhost:9000 $MINIO_USER $MINIO_PASSWORD",
    "poetry config http-basic.pypi __token__ ${PYPI_TOKEN}",
])
def test_the_commands_alone_and_variables_stay(text):
    assert redact(text) == text
