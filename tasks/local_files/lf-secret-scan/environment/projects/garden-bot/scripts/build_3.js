cache index index model view
parse view beta view config token test
build value user token
view alpha render index parse build config
view alpha model token
data view model test model user user parse
test build index user user build render value
beta user config render value index token index parse
token test view build cache
parse beta config token render data view model
user token render
build index alpha cache config model view
cache cache value render cache data beta cache view
view value alpha test data build config cache
user view alpha data build
