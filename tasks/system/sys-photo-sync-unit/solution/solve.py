from pathlib import Path

p = Path("rootfs/etc/systemd/system/photo-sync.service")
text = p.read_text()
text = text.replace("After=network.target", "After=network-online.target\nWants=network-online.target")
text = text.replace("EnvironmentFile=/etc/photo-sync.env", "EnvironmentFile=/etc/photo-sync/env")
text = text.replace("ExecStart=photo-sync ", "ExecStart=/usr/local/bin/photo-sync ")
p.write_text(text)
print("1) ExecStart used a relative executable name -> /usr/local/bin/photo-sync; "
      "2) EnvironmentFile pointed to the missing /etc/photo-sync.env -> /etc/photo-sync/env; "
      "3) started before the network was up -> After= and Wants=network-online.target.")
