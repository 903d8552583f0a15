"""A tool's password option is found wherever it stands on the command: another option before it that the rule does
not read as the password (a port: ``mosquitto_pub -p 1883``, ``vsql -p 5433``, ``rabbitmqadmin -P 15672``) does not
hide the password option after it. The port stays."""

import pytest

from memdir.capture.redact import redact


@pytest.mark.parametrize("text,secret", [
    ("mosquitto_pub -h broker -p 1883 -u user -P Sup3rS3cret -t topic -m hi", "Sup3rS3cret"),
    ("mosquitto_sub -h b -p 8883 -u u -P Sup3rS3cret", "Sup3rS3cret"),
    ("mosquitto_rr -p 1883 -P 'two words' -t a -e b", "two words"),
    ("vsql -h host -p 5433 -U dbadmin -w Sup3rS3cret", "Sup3rS3cret"),
    ("rabbitmqadmin -H host -P 15672 -u admin -p Sup3rS3cret list queues", "Sup3rS3cret"),
    ("bcp db.dbo.t out t.dat -S srv -p -U sa -P Sup3rS3cret -c", "Sup3rS3cret"),
    ("ssh-keygen -p -f ~/.ssh/id_ed25519 -P Old0ldPass -N N3wPassw0rd", "Old0ldPass"),
    ("ssh-keygen -p -f ~/.ssh/id_ed25519 -P Old0ldPass -N N3wPassw0rd", "N3wPassw0rd"),
    ("zip -r -9 -q -P Sup3rS3cret out.zip dir", "Sup3rS3cret"),
    ("7z a -t7z -mx=9 -pSup3rS3cret out.7z dir", "Sup3rS3cret"),
    ("rar a -m5 -hpSup3rS3cret out.rar dir", "Sup3rS3cret"),
    ("ldapsearch -x -H ldap://h -p 389 -D cn=admin -w Sup3rS3cret", "Sup3rS3cret"),
    ("cqlsh -u cassandra -k ks -p Sup3rS3cret db.local", "Sup3rS3cret"),
    ("az login -u me@example.com -t tenant -p Sup3rS3cret", "Sup3rS3cret"),
])
def test_the_password_option_after_other_options_is_redacted(text, secret):
    out = redact(text)
    assert secret not in out, out
    assert "[redacted:password]" in out


@pytest.mark.parametrize("text", [
    "mosquitto_pub -h broker -p 1883 -t a -m hello",
    "mosquitto_sub -h broker -p 8883 -t 'a/#' -v",
    "vsql -h host -p 5433 -U dbadmin",
    "rabbitmqadmin -H host -P 15672 -u admin list queues",
    "rabbitmqadmin -H host -P 15672 -u admin -p $RABBIT_PASSWORD list queues",
    "unzip -p archive.zip file.txt | head",
    "ssh-keygen -p -f ~/.ssh/id_ed25519",
    "mosquitto_pub -p 1883 -t a -m hi | tee log -P x",
    "az storage blob upload -p path/to/file -c container",
])
def test_other_options_stay(text):
    assert redact(text) == text
