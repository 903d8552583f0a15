"""Siblings of case C15's ``password=hunter2``: a password given to a well-known command or SQL statement — MySQL's
and Oracle's ``IDENTIFIED BY``, ``SET PASSWORD``, openssl's ``pass:`` and ``enc -k``, keytool's ``-storepass``, zip's
``-P``, 7-Zip's ``-p``, the ldap tools' ``-w``, ssh-keygen's ``-N``, ``az login -p``, rdesktop / xfreerdp, smbclient's
``user%pass``, lftp's ``user,pass``, ``net user``, ``rabbitmqctl add_user``, a password piped to ``sudo -S`` or
``--password-stdin`` or ``chpasswd``, ``vault login TOKEN``: redacted; the same commands without a password, and prose
about them, are left alone."""

import pytest

from memdir.capture.redact import redact


@pytest.mark.parametrize("text,secret", [
    ("CREATE USER 'app'@'%' IDENTIFIED BY 'hunter2xyz';", "hunter2xyz"),
    ("ALTER USER 'root'@'localhost' IDENTIFIED WITH mysql_native_password BY 'hunter2xyz';", "hunter2xyz"),
    ("GRANT ALL ON db.* TO 'app'@'%' IDENTIFIED BY \"Tr0ub4dor&3\";", "Tr0ub4dor&3"),
    ("ALTER USER scott IDENTIFIED BY tiger2024;", "tiger2024"),
    ("SET PASSWORD FOR 'app'@'localhost' = 'hunter2xyz';", "hunter2xyz"),
    ("SET PASSWORD = PASSWORD('hunter2xyz');", "hunter2xyz"),
    ("openssl pkcs12 -export -passout pass:hunter2xyz -out a.p12", "hunter2xyz"),
    ("openssl rsa -in k.pem -passin pass:'my secret words' -out k2.pem", "my secret words"),
    ("openssl enc -aes-256-cbc -k hunter2xyz -in a -out b", "hunter2xyz"),
    ("apksigner sign --ks release.jks --ks-pass pass:hunter2xyz app.apk", "hunter2xyz"),
    ("keytool -genkey -alias a -storepass hunter2xyz -keypass hunter2abc", "hunter2"),
    ("keytool -importkeystore -srcstorepass hunter2xyz -deststorepass x", "hunter2xyz"),
    ("zip -P hunter2xyz secret.zip file", "hunter2xyz"),
    ("unzip -P hunter2xyz secret.zip", "hunter2xyz"),
    ("7z a -phunter2xyz archive.7z dir", "hunter2xyz"),
    ("ldapsearch -x -D cn=admin -w hunter2xyz -b dc=x", "hunter2xyz"),
    ("ldapadd -x -D cn=admin,dc=x -w 'hunter2 xyz' -f a.ldif", "hunter2 xyz"),
    ("ssh-keygen -t ed25519 -N hunter2xyz -f key", "hunter2xyz"),
    ("az login --service-principal -u app -p hunter2xyz --tenant t", "hunter2xyz"),
    ("rdesktop -u admin -p hunter2xyz host", "hunter2xyz"),
    ("xfreerdp /u:admin /p:hunter2xyz /v:host", "hunter2xyz"),
    ("smbclient //server/share -U admin%hunter2xyz", "hunter2xyz"),
    ("lftp -u admin,hunter2xyz ftp.example.com", "hunter2xyz"),
    ("net user administrator hunter2xyz /add", "hunter2xyz"),
    ("rabbitmqctl add_user admin hunter2xyz", "hunter2xyz"),
    ("rabbitmqctl change_password admin 'hunter2 xyz'", "hunter2 xyz"),
    ("echo hunter2xyz | sudo -S apt update", "hunter2xyz"),
    ("echo 'hunter2xyz' | sudo -k -S make install", "hunter2xyz"),
    ("echo hunter2xyz | docker login -u admin --password-stdin", "hunter2xyz"),
    ("echo 'admin:hunter2xyz' | chpasswd", "hunter2xyz"),
    ("vault login s.Zk39vQp7Lm22xR8sQ1w2e3r4", "Zk39vQp7Lm22xR8sQ1w2e3r4"),
])
def test_a_password_given_to_a_command_is_redacted(text, secret):
    out = redact(text)
    assert secret not in out and "[redacted:" in out, out


def test_the_user_name_beside_the_password_stays():
    assert redact("echo 'admin:hunter2xyz' | chpasswd") == "echo 'admin:[redacted:password]' | chpasswd"
    assert redact("smbclient //s/share -U admin%hunter2xyz") == "smbclient //s/share -U admin%[redacted:password]"


@pytest.mark.parametrize("text", [
    "the user is identified by their email address",
    "Identified by the team as the root cause",
    "identified by name and version",
    "SET PASSWORD FOR the user in the admin UI",
    "zip -r out.zip dir -x '*.pyc'",
    "unzip -p archive.zip file.txt | less",
    "zip -P is insecure, use 7z instead",
    "7z x archive.7z -o/tmp/out",
    "7z a -p archive.7z dir",
    "openssl req -new -key key.pem -out csr.pem",
    "openssl pkcs12 -in a.p12 -passin env:P12_PASS",
    "openssl s_client -connect host:443 -servername host",
    "ssh-keygen -t ed25519 -C me@example.com -f ~/.ssh/id",
    "ssh-keygen -N '' -f key",
    "ssh-keygen -s ca -I id -n alice key.pub",
    "ldapsearch -x -W -D cn=admin -b dc=x",
    "ldapsearch -w $LDAP_PW -b dc=x",
    "az login --use-device-code",
    "az vm create -p 22",
    "keytool -list -keystore ks.jks -storepass:env KS_PASS",
    "keytool -storepass and -keypass are needed",
    "net user administrator /active:yes",
    "net user bob * /add",
    "rabbitmqctl add_user is how you create users",
    "rabbitmqctl list_users",
    "echo hello | sudo tee /etc/x",
    "echo $PASSWORD | sudo -S apt update",
    'echo "$REGISTRY_TOKEN" | docker login -u x --password-stdin',
    "echo done | sudo -s",
    'echo "$USER:$PASS" | chpasswd',
    "vault login -method=github",
    "vault login",
    "xfreerdp /v:host /u:admin",
    "smbclient -L //server -U admin",
    "lftp -u admin sftp://host",
    "rar a -hp archive.rar dir",
    "the rar -p option sets a password",
])
def test_the_commands_without_a_password_are_left_alone(text):
    assert redact(text) == text
