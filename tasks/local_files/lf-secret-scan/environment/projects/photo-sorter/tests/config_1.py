alpha index user
build index user
token render value view model parse value
data test view model data user model model
token user alpha test value build
cache beta render render data index user index user
alpha model view config test
beta index config beta config build parse index value
build index user data view cache test index data
build value test model config config
model render index
user config alpha
cache parse view view view view user
parse token alpha parse data beta index alpha
parse test data value
index render parse parse data
beta value alpha test render render parse
beta data user render
index value parse
index test model model config view
index render index beta
