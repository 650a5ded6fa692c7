alpha beta build view
alpha parse token index
data render alpha user build value
parse model token beta token
user render parse config build parse render
view cache parse
value render config parse token token model user
model index user user index test config model user
cache parse user view
build config test parse
beta model model
cache user test config data token
model beta cache user user data config cache build
build data render build model build value
model beta data value
index beta cache cache value build cache cache
token token cache user beta config parse
user view render value
render test value data value render token model
build data model beta test render parse parse config
cache value config
beta config view token user parse
test view data token render
build parse test token build alpha beta test test
