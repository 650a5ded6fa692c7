view parse data token beta config render cache cache
model cache config parse beta
config cache model alpha render render config
token data parse model beta token build
parse build build user view data
test build user view index alpha data
user model view render parse value view token data
token render parse cache data model token beta
token config model cache config render value alpha
parse model view test test view value
token render build index build token build value model
render test build beta
index beta config user view build data token
user beta config data parse index config
beta view cache data build alpha build
build model index index
