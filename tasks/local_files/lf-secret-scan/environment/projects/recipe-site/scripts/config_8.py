value value view user view
token model parse cache test
build view token view cache alpha
beta user test alpha
token config beta test user user parse build
user render build value render parse
view data user parse beta config alpha view render
view value parse model cache view build cache
render view model beta cache value
parse alpha cache
alpha alpha index cache beta build
view config parse model config alpha alpha
beta alpha render beta config user beta
parse model cache render render view parse value beta
value index beta alpha token cache beta config
user beta user config beta data beta parse beta
config config build
build beta user token cache build cache parse value
token render config index build model parse build
model data view token parse
token render beta data beta index build build build
build render index user
render config beta alpha user parse value
render cache value build
model parse value alpha cache test data parse
