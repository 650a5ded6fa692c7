view model build value index build
alpha alpha render
index build value view test
model render value config token config
value render parse render config build
user index test render view user
token model data value test
parse test alpha index model index
build model alpha view config view alpha
view model value beta config view build index
view beta build config
config test beta render index
token view model
index render beta user
test view user view render build
alpha data data index value user
data token render model
