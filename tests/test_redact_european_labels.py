"""Siblings of case C15's ``password=hunter2`` in other European languages (the Chinese, Japanese and Korean labels
have their own tests): ``Passwort: x``, ``contraseña: x``, ``mot de passe : x``, ``senha: x``, ``пароль — x``,
``hasło: x``, ``wachtwoord=x``, a compound (``Datenbankpasswort``) and the label's object (``Passwort für die
Datenbank: x``): redacted; words about a password in those languages are left alone."""

import pytest

from memdir.capture.redact import redact


@pytest.mark.parametrize("text,secret", [
    ("Passwort: hunter2xyz", "hunter2xyz"),
    ("PASSWORT: hunter2xyz", "hunter2xyz"),
    ("Kennwort = hunter2xyz", "hunter2xyz"),
    ("Das Passwort ist hunter2xyz.", "hunter2xyz"),
    ("WLAN-Passwort: Tr0ub4dor&3", "Tr0ub4dor&3"),
    ("Datenbankpasswort: hunter2xyz", "hunter2xyz"),
    ("Passwort für die Datenbank: hunter2xyz", "hunter2xyz"),
    ("Passwort: „geheim wort“", "geheim wort"),
    ("contraseña: hunter2xyz", "hunter2xyz"),
    ("La contraseña es 'sol y luna'", "sol y luna"),
    ("contraseña del servidor: hunter2xyz", "hunter2xyz"),
    ("mot de passe : hunter2xyz", "hunter2xyz"),
    ("le mot de passe est hunter2xyz", "hunter2xyz"),
    ("mot de passe de la base : hunter2xyz", "hunter2xyz"),
    ("senha: hunter2xyz", "hunter2xyz"),
    ("a senha é hunter2xyz", "hunter2xyz"),
    ("Пароль: hunter2xyz", "hunter2xyz"),
    ("пароль — hunter2xyz", "hunter2xyz"),
    ("Пароль от базы: hunter2xyz", "hunter2xyz"),
    ("hasło: hunter2xyz", "hunter2xyz"),
    ("wachtwoord=hunter2xyz", "hunter2xyz"),
    ("lösenord: hunter2xyz", "hunter2xyz"),
    ("şifre: hunter2xyz", "hunter2xyz"),
    ("mật khẩu: hunter2xyz", "hunter2xyz"),
])
def test_a_password_after_a_european_label_is_redacted(text, secret):
    out = redact(text)
    assert secret not in out and "[redacted:password]" in out, out


@pytest.mark.parametrize("text", [
    "Passwort: vergessen", "Passwort vergessen?", "contraseña incorrecta", "La contraseña es incorrecta",
    "mot de passe : oublié", "mot de passe oublié", "Пароль: неверный", "senha: obrigatória", "Passwort: ********",
    "Passwort: $DB_PASS", "Passwortmanager: 1Password", "Passwort-Hash: bcrypt", "passwortlos: ja", "Passwörter: 12",
    "hasło: wymagane", "Kennwort: siehe /etc/secret", "Passwort: https://vault.example.com/x", "Passwort: <geheim>",
    "contraseña: tu_contraseña", "Passwort für die Datenbank: vergessen", "Passwort für alle Nutzer ändern",
    "mot de passe de test", "contraseña de 8 caracteres: obligatoria",
])
def test_words_about_a_password_are_left_alone(text):
    assert redact(text) == text
