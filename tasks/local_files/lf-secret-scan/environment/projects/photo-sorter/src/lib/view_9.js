render build cache index alpha build alpha value
build user test value user render token
test token parse model value user test
alpha model view beta token config
parse config index view value value view
build beta index test
index parse alpha
model build parse alpha test render user
view alpha test value test cache
data parse render
user render parse
cache config index index value user view beta
index alpha render alpha config value cache
view index cache model beta index test
view alpha index
index render model view config
