user parse token parse cache beta
test config view config index
build parse render data view alpha test view
cache beta data parse cache cache parse
user test index value data build config config beta
value build model config view
render parse view
value index build model value alpha cache
view view token index
data parse cache test
