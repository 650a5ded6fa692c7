data cache token config token build
config index test user data
value config index cache test parse view index render
beta user beta build view config value parse token
user render view render
beta config model model config alpha index
view user view user build parse beta index config
user token data data cache view view cache token
test view user data
